import type { Report } from '@meridian/contracts';
import type { AnalysisDeps } from '../deps.js';
import type { PipelineInput, Trace } from './run-pipeline.js';

export type { PipelineInput, Trace };

/** The audit a worker runs (src/flows/run-pipeline.ts in production; tests put a stand-in here). */
export type RunPipeline = (deps: AnalysisDeps, input: PipelineInput, trace: Trace) => Promise<Report>;
