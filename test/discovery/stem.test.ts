import { describe, expect, it } from 'vitest';
import { stem } from '../../src/discovery/stem.js';

describe('stem', () => {
  it.each([
    ['users', 'user'],
    ['customers', 'customer'],
    ['queries', 'query'],
    ['addresses', 'address'],
    ['boxes', 'box'],
    ['matches', 'match'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['running', 'run'],
    ['logging', 'log'],
    ['created', 'creat'],
    ['create', 'creat'],
    ['creation', 'creat'],
    ['translation', 'translat'],
    ['translate', 'translat'],
    ['files', 'fil'],
    ['file', 'fil'],
    ['comments', 'comment'],
    ['commits', 'commit'],
    ['committed', 'commit'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it.each(['pr', 'aws', 'k8s', 's3', 'need', 'speed', 'embed', 'string', 'free', 'use', 'résumé', '天気'])('keeps %s', (word) => {
    expect(stem(word)).toBe(word);
  });

  it('gives one stem to the forms of a word', () => {
    for (const forms of [
      ['update', 'updates', 'updated', 'updating'],
      ['schedule', 'scheduled', 'scheduling'],
      ['process', 'processes', 'processing'],
      ['repository', 'repositories'],
    ]) {
      expect(new Set(forms.map(stem)).size).toBe(1);
    }
  });
});
