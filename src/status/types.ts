// What `payops status` found (status.ts gathers it, status-view.ts renders it): apart, so
// that the view and the service do not import each other.
import type { AttentionRun } from '../runs/latest.js';
import type { GatewayCheck } from './check.js';

export interface SettingView {
  key: string;
  /** Display text; the sign key only as "set" / "not set". */
  value: string;
  /** Where it came from, in words: `--base-url`, `PAYOPS_BASE_URL`, `profile "live"`, `default`. */
  from: string;
}

export interface StatusReport {
  profile: { name: string; from: string; exists: boolean };
  configFile: string;
  gateway: { url: string; sandbox: boolean };
  check: GatewayCheck;
  settings: SettingView[];
  readOnly: boolean;
  journal: string;
  attention: AttentionRun[];
  /** Runs whose journal cannot be read (their ids). */
  damaged: string[];
}
