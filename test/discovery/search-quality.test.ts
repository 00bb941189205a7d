/**
 * Search as a backend service uses it: word forms, typos next to exact words, titles and `_meta`
 * facts, short tags against prefixes, namespace pieces, and the cost of long queries.
 */
import { describe, expect, it } from 'vitest';
import { compareCodePoints, createToolIndex, type InMemoryToolIndex, type ToolSummary } from '../../src/discovery/index.js';
import { TextEngine, queryTerms } from '../../src/discovery/text-engine.js';
import { engineDoc } from '../../src/discovery/search-fields.js';
import { local, mcp, tool } from './support.js';

const ids = (results: ToolSummary[]) => results.map((result) => result.id);

/** A small realistic catalogue (the reviewer's repro-plurals index). */
function catalogue(): InMemoryToolIndex {
  const index = createToolIndex();
  const add = (namespace: string, name: string, description: string, tags?: string[]) =>
    index.registerTool(tool(name, { namespace, description, ...(tags ? { tags } : {}) }), mcp(namespace));
  add('stripe', 'createCustomer', 'Create a customer in Stripe', ['payments']);
  add('stripe', 'listCustomers', 'List customers', ['payments']);
  add('github', 'add_issue_comment', 'Add a comment to an issue', ['issues', 'write']);
  add('jira', 'addComment', 'Add a comment to a Jira issue', ['issues']);
  add('github', 'list_commits', 'Get list of commits of a branch', ['git']);
  add('translate', 'translate_text', 'Translate text between languages', ['language']);
  add('jira', 'transitionIssue', 'Transition a Jira issue to another status', ['issues']);
  add('crm', 'get_user', 'Get a user by id');
  add('crm', 'list_groups', 'List groups');
  add('fs', 'read_file', 'Read the complete contents of a file from the file system', ['files', 'read']);
  add('fs', 'move_file', 'Move or rename files and directories', ['files']);
  add('fs', 'write_file', 'Create a new file or completely overwrite an existing file', ['files', 'write']);
  add('github', 'list_pull_requests', 'List pull requests in a repository', ['pr']);
  add('github', 'create_pull_request', 'Create a new pull request', ['pr', 'write']);
  add('slack', 'get_user_profile', 'Get detailed profile information for a user', ['users']);
  add('gmail', 'send_email', 'Send an email message', ['email']);
  add('notion', 'query_database', 'Query a Notion database with filters', ['docs', 'db']);
  return index;
}

/** 200 generic tools whose descriptions hold many `pr…` words (the reviewer's noise). */
function addNoise(index: InMemoryToolIndex): void {
  for (let i = 0; i < 200; i++) {
    index.registerTool(
      tool(`op_${i}`, {
        namespace: `misc${i % 10}`,
        description: `Generic operation number ${i} for internal data processing and file handling`,
      }),
      local(`op${i}`),
    );
  }
}

describe('word forms (plurals and common endings) on both sides', () => {
  const index = catalogue();

  it('a plural query finds the singular tool, and a singular query the plural one', () => {
    expect(ids(index.search('users', 3))).toContain('crm:get_user');
    expect(ids(index.search('list users', 3))).toContain('crm:get_user');
    expect(ids(index.search('customers', 3))).toEqual(expect.arrayContaining(['stripe:createCustomer', 'stripe:listCustomers']));
    expect(ids(index.search('customer', 3))).toEqual(expect.arrayContaining(['stripe:createCustomer', 'stripe:listCustomers']));
  });

  it('comments ranks the comment tools above list_commits', () => {
    const found = ids(index.search('comments', 5));
    expect(found.slice(0, 2).sort()).toEqual(['github:add_issue_comment', 'jira:addComment']);
    expect(found).not.toContain('github:list_commits');
  });

  it('a derived form finds its base word: translation → translate', () => {
    expect(ids(index.search('translation', 3))[0]).toBe('translate:translate_text');
  });

  it('the form the query has ranks first among equal matches', () => {
    const other = createToolIndex();
    other.registerTool(tool('search_repositories', { namespace: 'gh', description: 'Search for repositories' }), local('s'));
    other.registerTool(tool('list_issues', { namespace: 'gh', description: 'List issues in a repository' }), local('l'));
    expect(ids(other.search('repositories', 2))).toEqual(['gh:search_repositories', 'gh:list_issues']);
  });
});

describe('typos next to exact words', () => {
  it('a misspelt word contributes when the other words matched: "reed file" ranks read_file first', () => {
    const index = catalogue();
    expect(ids(index.search('reed file', 3))[0]).toBe('fs:read_file');
  });

  it('a typo match ranks below an exact match of the same word', () => {
    const index = createToolIndex();
    index.registerTool(tool('read_notes', { description: 'notes' }), local('a'));
    index.registerTool(tool('reed_notes', { description: 'notes' }), local('b'));
    expect(ids(index.search('reed notes', 2))).toEqual(['reed_notes', 'read_notes']);
  });

  it('a typo alone still finds the tool', () => {
    expect(ids(catalogue().search('comits', 3))).toContain('github:list_commits');
  });
});

describe('titles and _meta facts', () => {
  const index = createToolIndex();
  index.registerTool(
    tool('gh_ci_v2', {
      namespace: 'gh',
      title: 'Open Ticket',
      annotations: { title: 'File Incident' },
      description: 'See docs.',
      _meta: { securitySchemes: { oauth2: {} }, inputModes: ['audio'], outputModes: ['image'] },
    }),
    local('x'),
  );
  index.registerTool(tool('other', { description: 'Something else' }), local('y'));

  it.each(['open ticket', 'ticket', 'incident', 'oauth2', 'audio', 'image'])('finds the tool by %j', (query) => {
    expect(ids(index.search(query, 3))).toEqual(['gh:gh_ci_v2']);
  });
});

describe('short tags against prefixes', () => {
  it('an exact two-letter tag outranks a prefix match in another tool, however many tools share the prefix', () => {
    const index = catalogue();
    addNoise(index);
    const found = ids(index.search('pr', 4));
    expect(found.slice(0, 2).sort()).toEqual(['github:create_pull_request', 'github:list_pull_requests']);
    expect(found).not.toContain('slack:get_user_profile');
  });

  it('a two-letter word that is no indexed word still matches as a prefix', () => {
    const index = catalogue();
    expect(ids(index.search('tr', 5))).toEqual(expect.arrayContaining(['translate:translate_text', 'jira:transitionIssue']));
  });
});

describe('namespace pieces', () => {
  it('a piece of a namespace finds its tools, below word matches', () => {
    const index = catalogue();
    expect(ids(index.search('mail', 5))).toContain('gmail:send_email');
    expect(ids(index.search('hub', 5))).toEqual(expect.arrayContaining(['github:add_issue_comment', 'github:list_commits']));
    index.registerTool(tool('mail_merge', { namespace: 'docs', description: 'Merge letters' }), local('m'));
    expect(ids(index.search('mail', 5))[0]).toBe('docs:mail_merge');
  });
});

describe('long queries', () => {
  it('a 25-word query over 5,000 tools whose descriptions share its words answers quickly and well', () => {
    const verbs = ['get', 'list', 'create', 'update', 'delete', 'search', 'export', 'import', 'sync', 'archive'];
    const nouns = ['issue', 'user', 'invoice', 'order', 'file', 'message', 'channel', 'project', 'ticket', 'event'];
    const filler =
      'account team workspace item detail status metadata attachment comment label owner permission batch send email new tool find need'.split(
        ' ',
      );
    const index = createToolIndex();
    for (let i = 0; i < 5000; i++) {
      const verb = verbs[i % 10] as string;
      const noun = nouns[Math.floor(i / 10) % 10] as string;
      const words = Array.from({ length: 15 }, (_, k) => filler[(i * 7 + k * 3) % filler.length]).join(' ');
      index.registerTool(
        tool(`${verb}_${noun}_${i}`, { namespace: `svc${i % 25}`, description: `${verb} ${noun} ${words}`, tags: [noun, verb] }),
        local('x'),
      );
    }
    const query =
      'I need to find a tool that can create a new invoice for a customer and send it by email to the account owner with an attachment';
    const median = (text: string): number => {
      const times: number[] = [];
      for (let run = 0; run < 7; run++) {
        const started = performance.now();
        index.search(text, 10);
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[3] as number;
    };
    expect(index.search(query, 10)[0]?.id).toMatch(/:create_invoice_/);
    // Measured against one common word in the same run (so a loaded machine slows both): before
    // long queries were bounded, the long query cost twice the common word; now a fraction of it.
    const oneCommonWord = median('need');
    expect(median(query)).toBeLessThan(oneCommonWord);
  });
});

describe('typos with two letters swapped', () => {
  function mail(): InMemoryToolIndex {
    const index = createToolIndex();
    const add = (namespace: string, name: string, description: string) =>
      index.registerTool(tool(name, { namespace, description }), mcp(namespace));
    add('gmail', 'archive_email', 'Archives an email in the Gmail mailbox.');
    add('gmail', 'forward_email', 'Forwards an email to another recipient.');
    add('gmail', 'send_email', 'Sends an email to one or more recipients.');
    add('twilio', 'send_sms', 'Sends an SMS to a phone number.');
    return index;
  }

  it('a swapped pair of letters alone finds the word: "emial" finds the email tools', () => {
    expect(ids(mail().search('emial', 5)).sort()).toEqual(['gmail:archive_email', 'gmail:forward_email', 'gmail:send_email']);
  });

  it('"sned email" and "send emial" rank send_email first', () => {
    const index = mail();
    expect(ids(index.search('sned email', 3))[0]).toBe('gmail:send_email');
    expect(ids(index.search('send emial', 3))[0]).toBe('gmail:send_email');
  });

  it('a swap match ranks below an exact match of the same word', () => {
    const index = createToolIndex();
    index.registerTool(tool('send_notes', { description: 'notes' }), local('a'));
    index.registerTool(tool('sned_notes', { description: 'notes' }), local('b'));
    expect(ids(index.search('sned notes', 2))).toEqual(['sned_notes', 'send_notes']);
  });
});

describe('compound names in any spelling', () => {
  const SPELLINGS = ['get-weather', 'get.weather', 'getWeather', 'get_weather', 'GET_WEATHER'];
  const DESCRIPTION = 'Returns the forecast for a city';

  /** One tool per spelling, in one namespace, with one description: only the name's spelling differs. */
  function weather(): InMemoryToolIndex {
    const index = createToolIndex();
    for (const name of SPELLINGS) index.registerTool(tool(name, { namespace: 'w', description: DESCRIPTION }), local(name));
    return index;
  }

  it('the same words score the same in camelCase, snake_case, kebab-case and dotted names', () => {
    const engine = new TextEngine();
    for (const name of SPELLINGS) engine.upsert(engineDoc(`w:${name}`, tool(name, { namespace: 'w', description: DESCRIPTION }), []));
    for (const query of ['get weather', 'get', 'weather', 'weather forecast', 'getweather', 'get-weath', 'get wether', 'getwehter']) {
      const hits = engine.search(queryTerms(query));
      expect(hits.map((hit) => hit.id).sort(), query).toEqual(SPELLINGS.map((name) => `w:${name}`).sort());
      const scores = new Set(hits.map((hit) => hit.score.toFixed(9)));
      expect(scores.size, `${query}: ${JSON.stringify(hits)}`).toBe(1);
    }
  });

  it('equal scores are ranked by ID in code-point order, whatever the spelling', () => {
    const byId = SPELLINGS.map((name) => `w:${name}`).sort(compareCodePoints);
    expect(byId).toEqual(['w:GET_WEATHER', 'w:get-weather', 'w:get.weather', 'w:getWeather', 'w:get_weather']);
    const index = weather();
    for (const query of ['get weather', 'weather', 'get', 'forecast city']) {
      expect(ids(index.search(query, 10)), query).toEqual(byId);
      expect(ids(index.searchPage(query, 10).items), query).toEqual(byId);
    }
  });

  it('a word does not count twice as the start of a compound: "list users" ranks get_user first, the list tools tied by ID', () => {
    const index = createToolIndex();
    index.registerTool(tool('get_user', { namespace: 'crm', description: 'Get a user by id' }), mcp('crm'));
    index.registerTool(tool('listGroups', { namespace: 'crm', description: 'List groups' }), mcp('crm'));
    index.registerTool(tool('listCommits', { namespace: 'git', description: 'List commits' }), mcp('git'));
    index.registerTool(tool('list_accounts', { namespace: 'crm', description: 'List accounts' }), mcp('crm'));
    expect(ids(index.search('list users', 4))).toEqual(['crm:get_user', 'crm:listGroups', 'crm:list_accounts', 'git:listCommits']);
  });

  it('a word joined into a compound still finds it whole, in any spelling of the query', () => {
    const index = weather();
    for (const query of ['getweather', 'GetWeather', 'get_weather', 'get.weather']) {
      expect(ids(index.search(query, 10)).sort(), query).toEqual(SPELLINGS.map((name) => `w:${name}`).sort());
    }
  });

  const THREE_WORDS = ['GET_USER_NAME', 'get-user-name', 'get.user.name', 'getUserName', 'get_userName', 'get_user_name'];

  it('three words score the same in every spelling, their neighbouring pairs (`username`, `getuser`) included', () => {
    const engine = new TextEngine();
    for (const name of THREE_WORDS) engine.upsert(engineDoc(`u:${name}`, tool(name, { namespace: 'u', description: 'x' }), []));
    const queries = ['username', 'getuser', 'user_name', 'user name', 'get user name', 'getusername', 'get_userName', 'user', 'usernmae'];
    for (const query of queries) {
      const hits = engine.search(queryTerms(query));
      expect(hits.map((hit) => hit.id).sort(), query).toEqual(THREE_WORDS.map((name) => `u:${name}`).sort());
      const scores = new Set(hits.map((hit) => hit.score.toFixed(9)));
      expect(scores.size, `${query}: ${JSON.stringify(hits)}`).toBe(1);
    }
  });

  it('"username" finds a three-word user name in any spelling; "user name" still ranks them above fetchUsername', () => {
    const index = createToolIndex();
    for (const name of ['fetchUsername', 'getUserName', 'get_userName', 'get_user_name']) {
      index.registerTool(tool(name, { namespace: 'ns', description: 'x' }), local(name));
    }
    const spellings = ['ns:getUserName', 'ns:get_userName', 'ns:get_user_name'];
    expect(ids(index.search('username', 5)).sort()).toEqual(['ns:fetchUsername', ...spellings].sort());
    for (const query of ['user name', 'get user name', 'getusername']) {
      expect(ids(index.search(query, 5)).slice(0, 3), query).toEqual(spellings);
    }
    expect(ids(index.search('get_userName', 5))[0]).toBe('ns:get_userName');
    // A pair is matched whole, never as a prefix of a query word: `usern` is a prefix of fetchUsername's word only.
    expect(ids(index.search('usern', 5))).toEqual(['ns:fetchUsername']);
  });

  it('"add two numbers" finds a tool described "Adds two numbers" (adds → add), above one that only shares "two numbers"', () => {
    const index = createToolIndex();
    index.registerTool(tool('multiply', { namespace: 'math', description: 'Multiplies two numbers' }), local('m'));
    index.registerTool(tool('get-sum', { namespace: 'math', description: 'Adds two numbers' }), local('s'));
    index.registerTool(tool('concat', { namespace: 'text', description: 'Joins two strings' }), local('c'));
    expect(ids(index.search('add two numbers', 3)).slice(0, 2)).toEqual(['math:get-sum', 'math:multiply']);
  });
});
