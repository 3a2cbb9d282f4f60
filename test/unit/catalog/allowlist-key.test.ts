/** The allow-list key (Note [Allow-list matching]) and URL templates (Note [URL template clashes]). */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { allowlistKey } from '../../../engine/catalog/normalize-document.ts';
import { matchTemplate, openapiPath, parseUrlTemplate, templatesClash, type UrlSegment } from '../../../engine/catalog/url-template.ts';

const key = (q: string): string => allowlistKey(parse(q, { noLocation: true }));

describe('allowlistKey', () => {
  it('ignores layout, comments, commas, __typename and definition order', () => {
    const base = key('query A($id: Int!) { a(id: $id) { x ...F } } fragment F on T { y }');
    expect(key('# c\nfragment F on T { __typename y }\n\nquery A( $id : Int! ) {\n a(id: $id) { x, ...F __typename } }')).toBe(base);
    expect(key('query A($id: Int!) { a(id: $id) { x ...F } t: __typename } fragment F on T { y }')).toBe(base);
  });

  it('keeps field order, aliases, names, arguments and literals', () => {
    const base = key('query A { a { x y } }');
    for (const other of [
      'query A { a { y x } }',
      'query A { b: a { x y } }',
      'query B { a { x y } }',
      'query A { a(l: 1) { x y } }',
      '{ a { x y } }',
      'query A { a { x y } } query C { a { x } }',
    ]) {
      expect(key(other), other).not.toBe(base);
    }
  });
});

describe('URL templates', () => {
  const t = (url: string): readonly UrlSegment[] => {
    const r = parseUrlTemplate(url);
    if (typeof r === 'string') throw new Error(r);
    return r;
  };

  it('parses literals and parameters, refusing what is no template', () => {
    expect(t('authors/:id/books')).toEqual([
      { param: false, text: 'authors' },
      { param: true, name: 'id' },
      { param: false, text: 'books' },
    ]);
    for (const bad of ['/a', 'a/', 'a//b', 'a/:', 'a/:1x', 'a/:id/:id', 'a?b=1', 'a b']) expect(typeof parseUrlTemplate(bad), bad).toBe('string');
  });

  it('clashes when some URL matches both', () => {
    expect(templatesClash(t('authors/:id'), t('authors/top'))).toBe(true);
    expect(templatesClash(t('authors/:id'), t('authors/:name'))).toBe(true);
    expect(templatesClash(t('authors/:id'), t('books/:id'))).toBe(false);
    expect(templatesClash(t('authors/:id'), t('authors/:id/books'))).toBe(false);
  });

  it('matches paths and writes OpenAPI paths', () => {
    expect(matchTemplate(t('authors/:id/books'), ['authors', '7', 'books'])).toEqual({ id: '7' });
    expect(matchTemplate(t('authors/:id/books'), ['authors', '7'])).toBeNull();
    expect(matchTemplate(t('authors/:id'), ['books', '7'])).toBeNull();
    expect(openapiPath(t('authors/:id/books'))).toBe('/api/rest/authors/{id}/books');
  });
});
