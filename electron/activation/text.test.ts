import { expect, it } from 'vitest';
import { SkillCatalog } from '../skills/index.js';
import { openStore } from '../store/index.js';
import { tempDir } from '../test-support/index.js';
import { matchSkills } from './phase1.js';
import { addSkill } from './test-catalog.js';
import { contentWords, words } from './text.js';

it('splits unspaced Chinese, Japanese and Korean text into pairs of characters, apart from the Latin words in it', () => {
  expect(words('このPDFファイルを結合して')).toEqual([
    'この',
    'pdf',
    'ファ',
    'ァイ',
    'イル',
    'ルを',
    'を結',
    '結合',
    '合し',
    'して',
  ]);
  expect(words('帮我写一份Word文档')).toEqual(['帮我', '我写', '写一', '一份', 'word', '文档']);
  // Hangul stays in syllables (NFKD alone would leave jamo).
  expect(words('파일을 병합')).toEqual(['파일', '일을', '병합']);
  // A single character is kept as it is.
  expect(words('表')).toEqual(['表']);
  // Other scripts and plain text are split as before.
  expect(words('объедини эти PDF-файлы')).toEqual(['объедини', 'эти', 'pdf', 'фаилы']);
  expect(words('Café résumé, naïve')).toEqual(['cafe', 'resume', 'naive']);
  expect(words('merge these PDFs')).toEqual(['merge', 'these', 'pdfs']);
  expect(contentWords('この')).toEqual(['この']);
});

it('matches a request in Japanese or Chinese by the product names in it, and a skill written in Japanese by its words', () => {
  const store = openStore('account', tempDir())!;
  addSkill(store, {
    name: 'pdf',
    description: 'Merge, split and fill PDF files; extract their text and tables',
  });
  addSkill(store, { name: 'docx', description: 'Create and edit Word documents with tracked changes' });
  addSkill(store, { name: 'xlsx', description: 'Build Excel spreadsheets with formulas and charts' });
  addSkill(store, {
    name: 'kaigiroku',
    description: '会議の議事録を要約して、決定事項と担当者を一覧にします',
  });
  const catalog = new SkillCatalog(store, null);
  const top = (message: string) => matchSkills(catalog, message, { limit: 3 }).map((m) => m.name)[0];
  expect(top('このPDFファイルからテキストを抽出してください')).toBe('pdf');
  expect(top('帮我写一份带目录的Word文档')).toBe('docx');
  expect(top('创建一个Excel表格')).toBe('xlsx');
  // No run of the request equals a run of the description; its pairs of characters meet.
  expect(top('昨日の議事録を要約してほしい')).toBe('kaigiroku');
});
