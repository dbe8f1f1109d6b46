import { describe, expect, it } from 'vitest';
import { safeReturnTo } from './return-to.js';

describe('safeReturnTo', () => {
  it('keeps a path of this origin, with its query and fragment', () => {
    expect(safeReturnTo('/')).toBe('/');
    expect(safeReturnTo('/app?tab=keys')).toBe('/app?tab=keys');
    expect(safeReturnTo('/app/settings#top')).toBe('/app/settings#top');
  });

  it.each([
    'https://evil.example/',
    'http://evil.example',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\/evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    ' //evil.example',
    'javascript:alert(1)',
    'data:text/html,x',
    'evil.example',
    '',
    '/\u2028/evil.example',
  ])('sends %j to / instead', (value) => {
    expect(safeReturnTo(value)).toBe('/');
  });

  it('sends anything that is not a string to /', () => {
    expect(safeReturnTo(undefined)).toBe('/');
    expect(safeReturnTo(['/a'])).toBe('/');
  });
});
