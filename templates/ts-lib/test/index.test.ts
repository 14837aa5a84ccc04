import { describe, expect, it } from 'vitest';
import { wordCounts, words } from '../src/index.js';

describe('words', () => {
  it('splits on anything but letters and digits, lower-cased', () => {
    expect(words('Hello, world! Hello 2 you.')).toEqual(['hello', 'world', 'hello', '2', 'you']);
  });

  it('finds no words in an empty text', () => {
    expect(words('  ... ')).toEqual([]);
  });
});

describe('wordCounts', () => {
  it('counts each word, most frequent first', () => {
    expect(wordCounts('b a b c b a')).toEqual([
      ['b', 3],
      ['a', 2],
      ['c', 1],
    ]);
  });
});
