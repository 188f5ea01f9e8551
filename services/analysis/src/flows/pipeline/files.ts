import { randomBytes } from 'node:crypto';
import { guardedFetch, header, type FetchResult, type SeenResponse } from '../../adapters/scanner/http.js';
import { EXPOSED_FILES, exposedFileChecks, securityTxtChecks } from '../../domain/checks/files.js';
import type { FileProbe, FilesObservation, TextResource } from '../../domain/observations.js';
import { mainOrigin, type StageContext, type Stage } from './context.js';

function fileProbe(path: string, r: SeenResponse): FileProbe {
  return {
    path,
    status: r.status,
    bytes: r.bytes,
    head: r.body.slice(0, 4096),
    content_type: header(r.headers, 'content-type'),
  };
}

export function textResource(r: FetchResult): TextResource {
  return {
    url: r.final.url,
    status: r.final.status,
    content_type: header(r.final.headers, 'content-type'),
    body: r.final.body,
  };
}

/** A GET of `path` at `origin`, with the session of an authenticated audit. */
export const fetchAt = (ctx: StageContext, origin: string, path: string, follow = true) =>
  guardedFetch(ctx.options, `${origin}${path}`, {
    follow,
    headers: ctx.sessionCookie ? { cookie: ctx.sessionCookie } : {},
  });

/** The random path first (how this origin says "not found"), then each file, without redirects. */
async function probeFiles(ctx: StageContext, origin: string): Promise<FilesObservation> {
  const baseline = await fetchAt(ctx, origin, `/meridian-${randomBytes(8).toString('hex')}.txt`, false);
  const probes: FileProbe[] = [];
  for (const spec of EXPOSED_FILES) {
    const r = await fetchAt(ctx, origin, spec.path, false).catch(() => null);
    if (r) probes.push(fileProbe(spec.path, r.final));
  }
  return { origin, baseline: fileProbe('(random)', baseline.final), probes };
}

/**
 * Exposed files over every scheme the site answers (a server often serves http:// from another
 * document root than https://), and security.txt where the site lives (https preferred).
 */
export const filesStage: Stage = {
  name: 'files',
  async run(ctx) {
    const observations: FilesObservation[] = [];
    for (const origin of ctx.origins) observations.push(await probeFiles(ctx, origin));
    const security = await fetchAt(ctx, mainOrigin(ctx), '/.well-known/security.txt').then(
      textResource,
      () => null,
    );
    return [...exposedFileChecks(observations), ...securityTxtChecks(security, ctx.now())];
  },
};
