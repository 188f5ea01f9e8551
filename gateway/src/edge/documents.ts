import { Router } from 'express';
import type { X402Settings } from '../domain/payment-required.js';
import { agentDescriptor, type DescriptorSettings } from '../domain/agent-descriptor.js';
import { llmsTxt } from '../domain/llms.js';
import { openApiDocument } from '../domain/openapi.js';
import { x402Manifest } from '../domain/x402-manifest.js';

export interface DocumentSettings extends DescriptorSettings {
  x402: X402Settings;
}

/**
 * The gateway's own public documents (data-api-interface 4.3), generated once from the
 * catalogue at start: the catalogue only changes with a deploy.
 */
export function documentsRouter(settings: DocumentSettings): Router {
  const openapi = JSON.stringify(openApiDocument(settings.catalog, settings.publicBaseUrl));
  const llms = llmsTxt(settings.catalog, settings.publicBaseUrl);
  const manifest = JSON.stringify(x402Manifest(settings.x402, settings.catalog, settings.publicBaseUrl));
  const descriptor = JSON.stringify(agentDescriptor(settings));
  const router = Router();
  const cacheable = 'public, max-age=300';
  router.get('/openapi.json', (_req, res) => {
    res.set('cache-control', cacheable).type('application/json').send(openapi);
  });
  router.get('/llms.txt', (_req, res) => {
    res.set('cache-control', cacheable).type('text/plain; charset=utf-8').send(llms);
  });
  router.get('/.well-known/x402', (_req, res) => {
    res.set('cache-control', cacheable).type('application/json').send(manifest);
  });
  router.get(['/.well-known/mcp.json', '/.well-known/mcp/server-card.json'], (_req, res) => {
    res.set('cache-control', cacheable).type('application/json').send(descriptor);
  });
  return router;
}
