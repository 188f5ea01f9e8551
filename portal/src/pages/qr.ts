import QRCode from 'qrcode';
import { h } from './dom.js';

/** A QR code drawn in the browser (qrcode, pinned) as an SVG image: nothing leaves the page. */
export async function qrImage(text: string, alt: string): Promise<HTMLElement> {
  const svg = await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return h('img', { class: 'qr', src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`, alt });
}
