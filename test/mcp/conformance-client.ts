/**
 * The client command the official MCP conformance suite drives (`conformance client --command …`):
 * toolexec's facade, `createExec({ mcpServers: { s: { url, … } } })`, reaching the scenario's
 * server. The suite runs `<command> <serverUrl>` with `MCP_CONFORMANCE_SCENARIO` (and, for some
 * auth scenarios, `MCP_CONFORMANCE_CONTEXT`) in the environment and judges what its server saw.
 * Exit code 0 when the flow the scenario expects went through.
 */
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { type DefaultExec, type ExecOptions, createExec } from '../../src/exec/index.js';
import type { McpHttpServerConfig } from '../../src/mcp/index.js';

const REDIRECT_URL = 'http://localhost:3000/callback';
/** The client ID metadata document URL the suite's CIMD scenario expects a client to offer. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * An OAuth client with no browser: "sending the user" to the authorization URL is a request whose
 * redirect carries the code (the suite's authorization server approves at once); the code waits
 * for the app to hand it to `exec.finishAuth`, as a real app does with the code its callback got.
 */
class HeadlessOAuthProvider implements OAuthClientProvider {
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier: string | undefined;
  /** The code of the last authorization, until the app takes it. */
  pendingCode: string | undefined;
  readonly clientMetadataUrl: string | undefined;

  constructor(
    readonly clientMetadata: OAuthClientMetadata,
    options: { clientMetadataUrl?: string; client?: OAuthClientInformationMixed } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.#client = options.client;
  }

  get redirectUrl(): string {
    return REDIRECT_URL;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.#client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error('no PKCE code verifier was saved');
    return this.#verifier;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    const code = location === null ? null : new URL(location).searchParams.get('code');
    if (code === null) throw new Error(`the authorization server answered ${response.status} without a code`);
    this.pendingCode = code;
  }
  /** The code the "user" brought back, once. */
  takeCode(): string | undefined {
    const code = this.pendingCode;
    this.pendingCode = undefined;
    return code;
  }
}

interface Context {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
  idp_client_id?: string;
}

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Context;

/** Connects `s` (completing an interactive authorization when the server asks for one) and fails unless it is connected. */
async function connect(exec: DefaultExec, provider: HeadlessOAuthProvider | undefined): Promise<void> {
  let status = (await exec.connect()).s;
  const code = provider?.takeCode();
  if (status?.state === 'failed' && code !== undefined) {
    await exec.finishAuth('s', code);
    status = exec.serverStatus().s;
  }
  if (status?.state !== 'connected') throw status?.error ?? new Error(`server s is ${status?.state ?? 'unknown'}`);
}

/** Runs a tool; when the server asks for more scopes mid-session (step-up), completes that authorization and runs it again. */
async function call(exec: DefaultExec, provider: HeadlessOAuthProvider | undefined, name: string, args: Record<string, unknown>) {
  try {
    return await exec.runTool(`s:${name}`, args);
  } catch (error) {
    const code = provider?.takeCode();
    if (code === undefined) throw error;
    await exec.finishAuth('s', code);
    return exec.runTool(`s:${name}`, args);
  }
}

/** The access token of the cross-app access flow (SEP-990): IdP token exchange, then a JWT bearer grant. */
async function crossAppAccessToken(): Promise<string> {
  const prm = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', serverUrl))).json()) as {
    resource: string;
    authorization_servers: string[];
  };
  const asMetadata = (await (await fetch(new URL('/.well-known/oauth-authorization-server', prm.authorization_servers[0]))).json()) as {
    issuer: string;
    token_endpoint: string;
  };
  const post = async (
    url: string,
    body: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<{ access_token: string }> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body),
    });
    if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { access_token: string };
  };
  const grant = await post(context.idp_token_endpoint ?? '', {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    audience: asMetadata.issuer,
    resource: prm.resource,
    subject_token: context.idp_id_token ?? '',
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    client_id: context.idp_client_id ?? '',
  });
  const basic = Buffer.from(`${encodeURIComponent(context.client_id ?? '')}:${encodeURIComponent(context.client_secret ?? '')}`).toString(
    'base64',
  );
  const token = await post(
    asMetadata.token_endpoint,
    { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: grant.access_token },
    { authorization: `Basic ${basic}` },
  );
  return token.access_token;
}

async function main(): Promise<void> {
  if (serverUrl === undefined || scenario === '') throw new Error('usage: MCP_CONFORMANCE_SCENARIO=<name> conformance-client <server-url>');
  const server: McpHttpServerConfig = { url: serverUrl };
  const options: ExecOptions = { mcpServers: { s: server }, mcpReconnect: { initialDelayMs: 60_000 } };
  let provider: HeadlessOAuthProvider | undefined;
  let tool: [string, Record<string, unknown>] | undefined;

  if (scenario === 'tools_call') tool = ['add_numbers', { a: 3, b: 4 }];
  else if (scenario === 'sse-retry') tool = ['test_reconnection', {}];
  else if (scenario === 'elicitation-sep1034-client-defaults') {
    // The user accepts without filling anything in: the client applies the schema's defaults.
    options.onElicitation = async () => ({ action: 'accept', content: {} });
    tool = ['test_client_elicitation_defaults', {}];
  } else if (scenario === 'auth/client-credentials-basic') {
    server.authProvider = new ClientCredentialsProvider({ clientId: context.client_id ?? '', clientSecret: context.client_secret ?? '' });
  } else if (scenario === 'auth/client-credentials-jwt') {
    server.authProvider = new PrivateKeyJwtProvider({
      clientId: context.client_id ?? '',
      privateKey: context.private_key_pem ?? '',
      algorithm: context.signing_algorithm ?? 'ES256',
    });
  } else if (scenario === 'auth/cross-app-access-complete-flow') {
    server.headers = { authorization: `Bearer ${await crossAppAccessToken()}` };
    tool = ['test-tool', {}];
  } else if (scenario.startsWith('auth/')) {
    const metadata = { client_name: 'toolexec-conformance', redirect_uris: [REDIRECT_URL] };
    provider =
      scenario === 'auth/pre-registration'
        ? new HeadlessOAuthProvider(metadata, {
            client: { client_id: context.client_id ?? '', client_secret: context.client_secret ?? '', redirect_uris: [REDIRECT_URL] },
          })
        : new HeadlessOAuthProvider(metadata, { clientMetadataUrl: CLIENT_METADATA_URL });
    server.authProvider = provider;
    tool = ['test-tool', {}];
  }

  const exec = createExec(options);
  try {
    await connect(exec, provider);
    if (tool !== undefined) await call(exec, provider, ...tool);
  } finally {
    await exec.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('conformance client failed:', error);
    process.exit(1);
  },
);
