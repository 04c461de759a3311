// Placeholder: the configuration resolver (flag > environment > profile) lands with issue 2.
export interface ResolvedConfig {
  profile: string;
  baseUrl: string;
  merchantId: string;
  accountId: string;
  signKey: string | undefined;
  timeoutMs: number;
  concurrency: number;
  readOnly: boolean;
  statusLabels: Record<string, string>;
}
