import { describe, expect, it } from '@jest/globals';
import type { PaymentRequirements } from '@meridian/contracts';
import { decodePayment, matchRequirements, matchResource } from '../../src/domain/requirements.js';

const ours: PaymentRequirements = {
  scheme: 'exact',
  network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  amount: '10000',
  asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  payTo: 'PayTo1111111111111111111111111111',
  maxTimeoutSeconds: 60,
  extra: { feePayer: 'Fee11111111111111111111111111111' },
};
const payload = (change: Record<string, unknown> = {}) => ({
  x402Version: 2,
  resource: { url: 'http://x/v1/data/a/b/c', mimeType: 'application/json' },
  accepted: ours,
  payload: { transaction: 'AQID' },
  ...change,
});
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('decoding a payment header', () => {
  it('reads standard and url-safe base64 of the payload JSON', () => {
    expect(decodePayment(b64(payload()))).toMatchObject({ ok: true, value: { x402Version: 2 } });
    const urlSafe = b64(payload()).replace(/\+/g, '-').replace(/\//g, '_');
    expect(decodePayment(urlSafe).ok).toBe(true);
  });

  it('refuses what is not base64, not JSON, not a payment, or not version 2, each with its reason', () => {
    expect(decodePayment('not base64!')).toMatchObject({ ok: false, code: 'payment_undecodable' });
    expect(decodePayment(Buffer.from('{nope').toString('base64'))).toMatchObject({
      code: 'payment_undecodable',
    });
    expect(decodePayment(b64({ x402Version: 2 }))).toMatchObject({ code: 'payment_undecodable' });
    expect(decodePayment(b64(payload({ payload: {} })))).toMatchObject({ code: 'payment_undecodable' });
    expect(decodePayment(b64(payload({ x402Version: 1 })))).toMatchObject({ code: 'unsupported_version' });
  });
});

describe('matching a payment against our requirements', () => {
  it('accepts exactly our requirements', () => {
    expect(matchRequirements(ours, ours)).toBeUndefined();
  });

  it('names the first field that differs', () => {
    const cases: Array<[Partial<PaymentRequirements>, string]> = [
      [{ amount: '5000' }, 'amount_mismatch'],
      [{ amount: '10000.0' }, 'amount_mismatch'],
      [{ payTo: 'Other111111111111111111111111111' }, 'recipient_mismatch'],
      [{ asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }, 'asset_mismatch'],
      [{ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }, 'network_mismatch'],
      [{ extra: { feePayer: 'Another1111111111111111111111111' } }, 'fee_payer_mismatch'],
      [{ maxTimeoutSeconds: 600 }, 'requirements_mismatch'],
    ];
    for (const [change, reason] of cases)
      expect(matchRequirements({ ...ours, ...change }, ours)).toMatchObject({ ok: false, code: reason });
  });

  it('says what the payment offered and what the call needs', () => {
    expect(matchRequirements({ ...ours, amount: '5000' }, ours)?.detail).toBe(
      "The payment's amount is 5000; this call needs 10000.",
    );
  });
});

describe('binding a payment to the resource it was signed for', () => {
  const bought = 'https://api.example/v1/data/crypto/spot/reference_price?entity=BTC-USD&source=kraken';
  const signed = (url: string) => ({ url, mimeType: 'application/json' });

  it('accepts the same path and query, whatever the host, the order of parameters or dot segments', () => {
    expect(matchResource(signed(bought), bought)).toBeUndefined();
    expect(
      matchResource(
        signed('http://127.0.0.1:8080/v1/data/crypto/x/../spot/reference_price?source=kraken&entity=BTC-USD'),
        bought,
      ),
    ).toBeUndefined();
  });

  it('refuses another metric, another query, no resource or an unreadable one', () => {
    for (const other of [
      signed('https://api.example/v1/data/fx/spot/reference_rate?entity=BTC-USD&source=kraken'),
      signed('https://api.example/v1/data/crypto/spot/reference_price?entity=ETH-USD&source=kraken'),
      signed('https://api.example/v1/data/crypto/spot/reference_price?entity=BTC-USD'),
      signed('not a url'),
      undefined,
    ])
      expect(matchResource(other, bought)).toMatchObject({ ok: false, code: 'resource_mismatch' });
    expect(matchResource(signed('https://api.example/v1/data/fx/spot/reference_rate'), bought)?.detail).toBe(
      'The payment is for /v1/data/fx/spot/reference_rate; this call buys /v1/data/crypto/spot/reference_price?entity=BTC-USD&source=kraken.',
    );
  });
});
