import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createExec } from '../../src/exec/index.js';
import { type OAuthFixture, startOAuthFixture } from '../fixtures/mcp/oauth-server.mjs';
import { localTools, rejection } from './helpers.js';

/** A client-side OAuth provider that keeps everything in memory and records where it was sent to authorize. */
class MemoryOAuthProvider implements OAuthClientProvider {
  redirectedTo: URL | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  get redirectUrl(): string {
    return 'http://127.0.0.1:1/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      redirect_uris: [this.redirectUrl],
      client_name: 'toolexec test',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    };
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
  redirectToAuthorization(url: URL): void {
    this.redirectedTo = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
}

let oauth: OAuthFixture;
beforeAll(async () => {
  oauth = await startOAuthFixture();
});
afterAll(async () => {
  await oauth.close();
});

describe('an MCP server behind OAuth (the SDK server-side auth pieces)', () => {
  it('fails alone until authorized, then finishAuth() completes the flow on the transport that started it', async () => {
    const authProvider = new MemoryOAuthProvider();
    const e = createExec({ tools: localTools().tools, mcpServers: { secure: { url: oauth.url, authProvider } } });
    try {
      const status = await e.connect();
      expect(status.secure).toMatchObject({ state: 'failed', error: { code: 'EXECUTION', details: { transport: 'http' } } });
      expect(status.secure?.error?.message).toContain('not authorized');
      expect(oauth.stats.unauthorized).toBeGreaterThan(0);
      expect(authProvider.redirectedTo?.searchParams.get('code_challenge_method')).toBe('S256');
      expect((await e.runTool('math:add', { a: 1, b: 2 })).value).toBe(3);
      expect((await rejection(e.runTool('secure:echo', { text: 'x' }))).code).toBe('SERVER_UNAVAILABLE');

      // The user approves (the demo authorization server does at once) and comes back with a code.
      const approval = await fetch(authProvider.redirectedTo!, { redirect: 'manual' });
      const code = new URL(approval.headers.get('location')!).searchParams.get('code');
      expect(code).toEqual(expect.any(String));
      await e.finishAuth('secure', code!);
      expect(authProvider.tokens()?.access_token).toEqual(expect.any(String));
      expect(e.serverStatus().secure).toMatchObject({ state: 'connected', toolCount: expect.any(Number) });
      expect((await e.runTool('secure:echo', { text: 'behind oauth' })).value).toBe('behind oauth');

      // Nothing is waiting for a code any more.
      expect((await rejection(e.finishAuth('secure', 'another'))).code).toBe('INVALID_ARGUMENT');
      expect((await rejection(e.finishAuth('nobody', 'code'))).code).toBe('CONFIGURATION');
    } finally {
      await e.close();
    }
  });
});
