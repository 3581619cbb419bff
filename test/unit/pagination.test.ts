import { describe, expect, it } from 'vitest';
import { pageLinks, pageRequest, resolvePage } from '../../shared/domain/pagination.ts';
import { NotFoundError } from '../../shared/domain/errors.ts';

describe('page requests', () => {
  it.each([
    [{}, { page: 1, pageSize: 10 }],
    [{ page: '3' }, { page: 3, pageSize: 10 }],
    [{ page_size: '25' }, { page: 1, pageSize: 25 }],
    [{ page_size: '101' }, { page: 1, pageSize: 100 }],
    [{ page_size: '0' }, { page: 1, pageSize: 10 }],
    [{ page_size: 'x' }, { page: 1, pageSize: 10 }],
    [{ page: 'last' }, { page: Number.POSITIVE_INFINITY, pageSize: 10 }],
  ])('%j → %j', (query, expected) => {
    expect(pageRequest(query)).toEqual(expected);
  });

  it.each(['0', '-2', 'two', '1.5', ''])('page=%j is "Invalid page."', (page) => {
    expect(() => pageRequest({ page })).toThrow(new NotFoundError('Invalid page.'));
  });

  it('serves page 1 of nothing, refuses past the end, and resolves "last"', () => {
    expect(resolvePage({ page: 1, pageSize: 10 }, 0)).toBe(1);
    expect(() => resolvePage({ page: 2, pageSize: 10 }, 10)).toThrow('Invalid page.');
    expect(resolvePage({ page: 2, pageSize: 10 }, 11)).toBe(2);
    expect(resolvePage({ page: Number.POSITIVE_INFINITY, pageSize: 10 }, 31)).toBe(4);
  });
});

describe('page links', () => {
  const url = new URL('https://api.example.com/api/v2/products/?name=x&page=2&page_size=5');

  it('keeps the other parameters and drops page=1', () => {
    expect(pageLinks(url, 2, 5, 12)).toEqual({
      next: 'https://api.example.com/api/v2/products/?name=x&page=3&page_size=5',
      previous: 'https://api.example.com/api/v2/products/?name=x&page_size=5',
    });
  });

  it('has no next on the last page and no previous on the first', () => {
    expect(pageLinks(url, 3, 5, 12).next).toBeNull();
    expect(pageLinks(new URL('https://h/api/v2/products/'), 1, 10, 5)).toEqual({ next: null, previous: null });
  });
});
