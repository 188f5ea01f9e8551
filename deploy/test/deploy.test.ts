import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';

const ROOT = new URL('../../', import.meta.url).pathname;
const K8S = join(ROOT, 'deploy/k8s');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  [k: string]: unknown;
}

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** The API schema of each kind the manifests use (kubernetes-models: the OpenAPI schemas of Kubernetes). */
const MODELS: Record<string, ModelClass> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Namespace': Namespace,
  'v1 Secret': Secret,
  'v1 Service': Service,
};

function manifests(): { file: string; doc: Manifest }[] {
  return readdirSync(K8S)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(K8S, file), 'utf8'))
        .map((d) => d.toJS() as Manifest | null)
        .filter((doc): doc is Manifest => doc !== null)
        .map((doc) => ({ file, doc })),
    );
}

async function validate(doc: Manifest): Promise<string | undefined> {
  const Model = MODELS[`${doc.apiVersion} ${doc.kind}`];
  if (!Model) return `no schema known for ${doc.apiVersion} ${doc.kind}: add it to MODELS`;
  try {
    new Model(doc as never).validate();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The compose tool of this machine: the v2 plugin when the Docker CLI has it, else Debian's docker-compose. */
function composeTool(): string[] | undefined {
  if (spawnSync('docker', ['compose', 'version']).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version']).status === 0) return ['docker-compose'];
  return undefined;
}

describe('the deployment files', () => {
  it('every Kubernetes manifest passes the API schema of its kind (kubernetes-models)', async () => {
    const all = manifests();
    expect(all.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const { file, doc } of all) {
      const error = await validate(doc);
      if (error) failures.push(`${file} ${doc.kind}/${doc.metadata?.name}: ${error}`);
    }
    expect(failures).toEqual([]);
  });

  it('the schema check refuses a broken manifest (it can fail)', async () => {
    const deployment = manifests().find((m) => m.doc.kind === 'Deployment')!.doc;
    const broken = { ...deployment, spec: { ...deployment.spec, replicas: 'two' } };
    expect(await validate(broken)).toMatch(/replicas/);
  });

  it('the kustomization lists every manifest, and every reference names an object that exists', () => {
    const kustomization = parseAllDocuments(
      readFileSync(join(K8S, 'kustomization.yaml'), 'utf8'),
    )[0]!.toJS() as {
      resources: string[];
    };
    const files = readdirSync(K8S).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    const all = manifests().map((m) => m.doc);
    const named = (kind: string) => new Set(all.filter((d) => d.kind === kind).map((d) => d.metadata?.name));
    const deployments = named('Deployment');
    for (const hpa of all.filter((d) => d.kind === 'HorizontalPodAutoscaler')) {
      const target = (hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name;
      expect(deployments).toContain(target);
    }
    const configMaps = named('ConfigMap');
    for (const d of all.filter((x) => x.kind === 'Deployment')) {
      const text = JSON.stringify(d);
      for (const m of text.matchAll(/"configMapRef":\{"name":"([^"]+)"/g)) expect(configMaps).toContain(m[1]);
    }
  });

  it('deployments default to INGEST_MODE=live, the data service and the gateway alike; replay is one variable away', () => {
    const compose = parseAllDocuments(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'))[0]!.toJS() as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    expect(compose.services.data!.environment!.INGEST_MODE).toBe('${INGEST_MODE:-live}');
    expect(compose.services.gateway!.environment!.INGEST_MODE).toBe('${INGEST_MODE:-live}');
    const modes = manifests()
      .filter(({ doc }) => doc.kind === 'ConfigMap')
      .flatMap(({ doc }) => {
        const data = doc.data as Record<string, string> | undefined;
        return data?.INGEST_MODE === undefined ? [] : [[doc.metadata!.name, data.INGEST_MODE]];
      });
    expect(Object.fromEntries(modes)).toEqual({
      'meridian-gateway-config': 'live',
      'meridian-data-config': 'live',
    });
    // Billing's price list follows the data service's mode: compose shares the variable, k8s reads data's map.
    expect(compose.services.billing!.environment!.INGEST_MODE).toBe('${INGEST_MODE:-live}');
    const billing = manifests().find(
      ({ doc }) => doc.kind === 'Deployment' && doc.metadata!.name === 'billing',
    )!;
    expect(JSON.stringify(billing.doc)).toContain(
      '{"name":"INGEST_MODE","valueFrom":{"configMapKeyRef":{"name":"meridian-data-config","key":"INGEST_MODE"}}}',
    );
  });

  it("docker-compose.yml passes the compose tool's own check (`config`)", () => {
    const tool = composeTool();
    if (!tool) {
      // .ci/run installs Debian's docker-compose; a developer machine without any says so here.
      console.error(
        'no compose tool on this machine (docker compose or docker-compose): compose file not checked',
      );
      return;
    }
    const secret = () => randomBytes(32).toString('hex');
    const env = {
      ...process.env,
      INTERNAL_AUTH_SECRET: secret(),
      TOTP_ENCRYPTION_KEY: secret(),
      CREDENTIALS_KEY: secret(),
    };
    let file = join(ROOT, 'docker-compose.yml');
    if (tool[0] === 'docker-compose') {
      // Compose v1 (Debian's) predates the top-level `name`, which only sets the project name: the
      // rest of the file is checked against its schema, in the same folder (build contexts are relative).
      file = join(ROOT, '.compose-v1-check.yml');
      writeFileSync(file, readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8').replace(/^name: .*$/m, ''));
    }
    try {
      const out = execFileSync(tool[0]!, [...tool.slice(1), '-f', file, 'config', '--services'], {
        env,
        encoding: 'utf8',
      });
      expect(out.split('\n').filter(Boolean).sort()).toEqual(
        expect.arrayContaining([
          'analysis',
          'billing',
          'data',
          'gateway',
          'identity',
          'mcp',
          'requests',
          'x402',
        ]),
      );
    } finally {
      if (file.endsWith('.compose-v1-check.yml')) rmSync(file, { force: true });
    }
  });
});
