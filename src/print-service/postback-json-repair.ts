/**
 * The repair of a postback body that is not quite JSON. Apart from postback.ts because it works on text alone and knows
 * nothing of events: parsePostback calls it only when JSON.parse refuses a body, and reads the result as any other.
 */

/**
 * The repairs of docs/triggers.md, and nothing more, for bodies hand-written templates got slightly wrong:
 * 1. a bare word as a value (`"Carrier": shqcustomc_po_pm`) or as a key becomes a string; `true`, `false`, `null`
 *    and numbers stay what they are. A bare value runs to the end of its line or the next `,` `}` `]`.
 * 2. a missing comma between two members or array values on different lines is added.
 * 3. a trailing comma before `}` or `]` is dropped.
 * Anything else (single quotes, comments, unbalanced brackets, an unterminated string) is not repaired.
 */
export function repairJson(text: string): { ok: true; text: string; repairs: string[] } | { ok: false; error: string } {
  const out: string[] = [];
  const repairs = new Set<string>();
  const stack: ('{' | '[')[] = [];
  // What the last token emitted was: a value end (string, bare, number, } or ]), `:`, `,`, `{` or `[`.
  let last: 'value' | ':' | ',' | '{' | '[' | 'start' = 'start';
  let newlineSinceLast = false;
  let i = 0;
  const n = text.length;

  const beginValueOrKey = () => {
    if (last === 'value') {
      if (!newlineSinceLast) throw new RepairError(`two values without a comma on one line at offset ${i}`);
      out.push(',');
      repairs.add('added missing commas between lines');
    }
  };

  // Only a body that is an object in intent is repaired; a stray HTML page or a word is plainly not a postback.
  if (!text.trimStart().startsWith('{')) return { ok: false, error: 'it does not start with {' };
  try {
    while (i < n) {
      const c = text[i]!;
      if (c === '\n' || c === '\r') {
        newlineSinceLast = true;
        out.push(c);
        i++;
        continue;
      }
      if (c === ' ' || c === '\t') {
        out.push(c);
        i++;
        continue;
      }
      if (c === '"') {
        beginValueOrKey();
        let j = i + 1;
        while (j < n && text[j] !== '"') {
          if (text[j] === '\\') j++;
          else if (text[j] === '\n') throw new RepairError(`unterminated string at offset ${i}`);
          j++;
        }
        if (j >= n) throw new RepairError(`unterminated string at offset ${i}`);
        out.push(text.slice(i, j + 1));
        i = j + 1;
        last = 'value';
        newlineSinceLast = false;
        continue;
      }
      if (c === '{' || c === '[') {
        beginValueOrKey();
        stack.push(c);
        out.push(c);
        i++;
        last = c;
        newlineSinceLast = false;
        continue;
      }
      if (c === '}' || c === ']') {
        const open = stack.pop();
        if ((c === '}' && open !== '{') || (c === ']' && open !== '[')) throw new RepairError(`unbalanced ${c} at offset ${i}`);
        if (last === ',') {
          // Drop the trailing comma emitted before (and any whitespace after it stays).
          const at = out.lastIndexOf(',');
          out.splice(at, 1);
          repairs.add('dropped trailing commas');
        }
        out.push(c);
        i++;
        last = 'value';
        newlineSinceLast = false;
        continue;
      }
      if (c === ':' || c === ',') {
        if (last === c || last === 'start') throw new RepairError(`unexpected ${c} at offset ${i}`);
        out.push(c);
        i++;
        last = c;
        newlineSinceLast = false;
        continue;
      }
      // A bare token: up to the end of the line or the next structural character.
      let j = i;
      while (j < n && !',{}[]:"\r\n'.includes(text[j]!)) j++;
      // A bare key ends at its colon; a bare value runs on through spaces.
      const word = text.slice(i, j).trim();
      if (word === '') throw new RepairError(`unexpected character at offset ${i}`);
      beginValueOrKey();
      if (/^(true|false|null)$/.test(word) || /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(word)) {
        out.push(word);
      } else {
        if (/['\\]/.test(word)) throw new RepairError(`bare word ${JSON.stringify(word)} contains quotes or backslashes`);
        out.push(JSON.stringify(word));
        repairs.add(last === ':' ? 'quoted bare-word values' : 'quoted bare-word keys or values');
      }
      out.push(text.slice(i, j).slice(text.slice(i, j).trimEnd().length));
      i = j;
      last = 'value';
      newlineSinceLast = false;
    }
    if (stack.length > 0) throw new RepairError(`unclosed ${stack.at(-1)}`);
  } catch (error) {
    if (error instanceof RepairError) return { ok: false, error: error.message };
    throw error;
  }
  return { ok: true, text: out.join(''), repairs: [...repairs] };
}

class RepairError extends Error {}
