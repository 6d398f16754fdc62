import { describe, expect, it } from 'vitest';

import { withVideoPlayers } from './video-players';

const parse = (html: string) => {
  const template = document.createElement('template');
  template.innerHTML = html;
  return template.content;
};

describe('withVideoPlayers', () => {
  it("turns the portal's own video frame into a player that waits to be started", () => {
    const html = withVideoPlayers(
      '<p>Смотрите:</p><iframe class="ql-video" frameborder="0" allowfullscreen="true" src="/api/file/download/12"></iframe>',
    );
    const content = parse(html);
    expect(content.querySelector('iframe')).toBeNull();
    const video = content.querySelector('video');
    expect(video?.getAttribute('src')).toBe('/api/file/download/12');
    expect(video?.hasAttribute('controls')).toBe(true);
    expect(video?.hasAttribute('playsinline')).toBe(true);
    expect(video?.getAttribute('preload')).toBe('metadata');
    expect(video?.hasAttribute('autoplay')).toBe(false);
    expect(video?.className).toBe('ql-video');
    expect(content.querySelector('p')?.textContent).toBe('Смотрите:');
  });

  it('takes the address with the public host in it too', () => {
    const html = withVideoPlayers('<iframe src="https://portal.example.ru/api/file/download/3"></iframe>');
    expect(parse(html).querySelector('video')?.getAttribute('src')).toBe(
      'https://portal.example.ru/api/file/download/3',
    );
  });

  it('leaves other frames and frameless HTML alone', () => {
    const other = '<iframe src="https://video.example.ru/embed/1"></iframe>';
    expect(parse(withVideoPlayers(other)).querySelector('iframe')).not.toBeNull();
    expect(withVideoPlayers('<p>Текст</p>')).toBe('<p>Текст</p>');
  });
});
