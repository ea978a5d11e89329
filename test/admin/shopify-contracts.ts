import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Shopify's published contracts for the embedded pages (issue 26), read at run time from the installed packages:
 * `@shopify/app-bridge-types` (the `ui-*` elements, `s-app-nav`, `s-page`, the children App Bridge reads from
 * `ui-title-bar` and `ui-save-bar`, and the `shopify` global) and `@shopify/polaris-types` (the `s-*` web components).
 * Both are read with the TypeScript checker (tag names, property types and their enumerated values); Polaris's HTML
 * attribute names come from the package's own custom-elements manifest (`customElements` in its package.json), the
 * machine-readable list of each element's attributes that the .d.ts declares as properties, and the two are checked
 * to agree (same tags; each attribute's property declared in the .d.ts).
 */

/** An attribute an element declares: its property in the types, and its values when the type enumerates them. */
export interface DeclaredAttribute {
  property: string;
  values?: readonly string[];
}

export interface ElementContract {
  from: Set<'app-bridge' | 'polaris'>;
  attributes: Map<string, DeclaredAttribute>;
}

export interface ShopifyContracts {
  elements: Map<string, ElementContract>;
  /** Children App Bridge reads attributes from, by parent: `ui-title-bar` → `button` → attributes. */
  children: Map<string, Map<string, Map<string, DeclaredAttribute>>>;
  /** Where the manifest and the .d.ts disagree (should be empty; the check is only as good as the two agree). */
  disagreements: string[];
  versions: { appBridge: string; polaris: string };
}

const root = path.resolve(import.meta.dirname, '../..');
/** The installed package's folder, found as TypeScript finds its types (neither package exports its package.json). */
function packageDir(name: string): string {
  const found = ts.resolveTypeReferenceDirective(name, path.join(root, 'package.json'), { moduleResolution: ts.ModuleResolutionKind.NodeNext }, ts.sys).resolvedTypeReferenceDirective;
  if (!found?.resolvedFileName) throw new Error(`${name} is not installed (a dev dependency: npm ci)`);
  const file = path.resolve(found.resolvedFileName);
  return file.slice(0, file.indexOf(path.join('node_modules', name)) + path.join('node_modules', name).length);
}
const appBridgeDir = packageDir('@shopify/app-bridge-types');
const polarisDir = packageDir('@shopify/polaris-types');

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

const parsed = new Map<string, ts.SourceFile>();

/** A program of the two packages and the given in-memory files (paths inside the project, so node_modules resolves). */
export function programWith(files: Record<string, string>, options: ts.CompilerOptions = compilerOptions): ts.Program {
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, language, ...rest) => {
    if (file in files) return ts.createSourceFile(file, files[file]!, language, true);
    // The libraries' and packages' files parse once for all programs (polaris.d.ts alone is 360 kB).
    const cached = parsed.get(file) ?? getSourceFile.call(host, file, language, ...rest);
    if (cached) parsed.set(file, cached);
    return cached;
  };
  host.fileExists = (file) => file in files || fileExists.call(host, file);
  host.readFile = (file) => files[file] ?? readFile.call(host, file);
  return ts.createProgram(Object.keys(files), options, host);
}

export const PACKAGE_TYPES = `/// <reference types="@shopify/polaris-types" />
/// <reference types="@shopify/app-bridge-types" />
`;

const declaredIn = (symbol: ts.Symbol, dir: string): boolean => (symbol.declarations ?? []).some((d) => path.resolve(d.getSourceFile().fileName).startsWith(dir + path.sep));

/** The string values a type enumerates (`undefined`/`null` aside), or undefined when it is not only string literals. */
function enumerated(type: ts.Type): string[] | undefined {
  const parts = (type.isUnion() ? type.types : [type]).filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  if (parts.length === 0 || !parts.every((t) => t.isStringLiteral())) return undefined;
  return parts.map((t) => (t as ts.StringLiteralType).value).sort();
}

function attributesOf(checker: ts.TypeChecker, type: ts.Type): Map<string, DeclaredAttribute> {
  const attributes = new Map<string, DeclaredAttribute>();
  for (const p of type.getProperties()) {
    if (p.name === 'children') continue;
    const values = enumerated(checker.getTypeOfSymbol(p));
    // HTML lowercases attribute names: `discardConfirmation` is written `discardconfirmation` (as Polaris's own attributes).
    attributes.set(p.name.toLowerCase(), { property: p.name, ...(values ? { values } : {}) });
  }
  return attributes;
}

/**
 * The declared type of an element's children: the exported `UITitleBarAttributes` widens `children` to `any` (for JSX),
 * the interface it extends (`_UITitleBarAttributes`) says which children App Bridge reads.
 */
function childrenOf(checker: ts.TypeChecker, type: ts.Type): ts.Type | undefined {
  const own = type.getProperty('children');
  const ownType = own && checker.getTypeOfSymbol(own).getNonNullableType();
  if (ownType && !(ownType.flags & ts.TypeFlags.Any)) return ownType;
  const bases = type.isClassOrInterface() ? checker.getBaseTypes(type) : [];
  for (const base of bases) {
    const found = childrenOf(checker, base);
    if (found) return found;
  }
  return undefined;
}

interface ManifestAttribute {
  name: string;
  fieldName?: string;
}
interface ManifestDeclaration {
  tagName?: string;
  attributes?: ManifestAttribute[];
}

let cached: ShopifyContracts | undefined;

export function shopifyContracts(): ShopifyContracts {
  if (cached) return cached;
  const file = path.join(root, 'test/admin/__shopify-contracts__.ts');
  const program = programWith({
    [file]: `${PACKAGE_TYPES}import type { SAppNavLinkAttributes } from '@shopify/app-bridge-types';
declare const appBridgeElements: JSX.IntrinsicElements;
declare const polarisElements: HTMLElementTagNameMap;
declare const appNavLink: SAppNavLinkAttributes;
export {};
`,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const typeOf = (name: string): ts.Type => {
    const statement = source.statements.find((s): s is ts.VariableStatement => ts.isVariableStatement(s) && s.declarationList.declarations[0]!.name.getText(source) === name);
    return checker.getTypeAtLocation(statement!.declarationList.declarations[0]!);
  };
  const elements = new Map<string, ElementContract>();
  const element = (tag: string, from: 'app-bridge' | 'polaris'): ElementContract => {
    const e = elements.get(tag) ?? { from: new Set(), attributes: new Map() };
    e.from.add(from);
    elements.set(tag, e);
    return e;
  };
  const disagreements: string[] = [];

  // App Bridge: its elements as JSX declares them (the global JSX.IntrinsicElements also holds Polaris's: keep App Bridge's own).
  const appBridge = typeOf('appBridgeElements');
  const children = new Map<string, Map<string, Map<string, DeclaredAttribute>>>();
  // (JSX.IntrinsicElements extends App Bridge's AppBridgeElements; Polaris declares its own `s-page` there too.)
  const ownElements = (appBridge.isClassOrInterface() ? checker.getBaseTypes(appBridge) : []).find((t) => t.symbol && declaredIn(t.symbol, appBridgeDir));
  if (!ownElements) throw new Error('@shopify/app-bridge-types: JSX.IntrinsicElements no longer extends its element list');
  for (const p of ownElements.getProperties()) {
    const type = checker.getTypeOfSymbol(p);
    const e = element(p.name, 'app-bridge');
    for (const [name, a] of attributesOf(checker, type)) e.attributes.set(name, a);
    // The buttons and links App Bridge reads from the title bar and the save bar (their variant, tone, ...).
    if (p.name !== 'ui-title-bar' && p.name !== 'ui-save-bar') continue;
    const kids = childrenOf(checker, type);
    if (!kids) {
      disagreements.push(`${p.name}: no declared children in @shopify/app-bridge-types`);
      continue;
    }
    const byTag = new Map<string, Map<string, DeclaredAttribute>>();
    for (const k of kids.getProperties()) byTag.set(k.name, attributesOf(checker, checker.getTypeOfSymbol(k).getNonNullableType()));
    children.set(p.name, byTag);
  }
  // The app navigation's links: "provided as link child elements" (Shopify's examples: `<s-link href rel="home">`).
  const navLink = attributesOf(checker, typeOf('appNavLink'));
  children.set('s-app-nav', new Map([['s-link', navLink], ['a', navLink]]));

  // Polaris: the elements of HTMLElementTagNameMap the package declares, attributes by the manifest, values by the .d.ts.
  const polaris = typeOf('polarisElements');
  const polarisTags = new Map(polaris.getProperties().filter((s) => declaredIn(s, polarisDir)).map((s) => [s.name, checker.getTypeOfSymbol(s)] as const));
  const manifestPath = path.join(polarisDir, (JSON.parse(readFileSync(path.join(polarisDir, 'package.json'), 'utf8')) as { customElements: string }).customElements);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { modules: { declarations?: ManifestDeclaration[] }[] };
  const declarations = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d): d is ManifestDeclaration & { tagName: string } => Boolean(d.tagName));
  for (const tag of polarisTags.keys()) if (!declarations.some((d) => d.tagName === tag)) disagreements.push(`${tag}: in polaris.d.ts, not in the manifest`);
  for (const d of declarations) {
    const instance = polarisTags.get(d.tagName);
    if (!instance) {
      disagreements.push(`${d.tagName}: in the manifest, not in polaris.d.ts`);
      continue;
    }
    const e = element(d.tagName, 'polaris');
    for (const a of d.attributes ?? []) {
      const property = a.fieldName ?? a.name;
      const symbol = instance.getProperty(property);
      if (!symbol) {
        disagreements.push(`${d.tagName} ${a.name}: property ${property} not declared in polaris.d.ts`);
        continue;
      }
      const values = enumerated(checker.getTypeOfSymbol(symbol));
      e.attributes.set(a.name.toLowerCase(), { property, ...(values ? { values } : {}) });
    }
  }
  const version = (dir: string) => (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  cached = { elements, children, disagreements, versions: { appBridge: version(appBridgeDir), polaris: version(polarisDir) } };
  return cached;
}

/**
 * What a browser script does with the `shopify` global, checked against App Bridge's declaration of it: every member
 * it reads or calls (`shopify.saveBar.leaveConfirmation()`) is declared, its calls type-check (arguments, arity), and
 * an object it puts in the global (a stand-in's `Object.assign(shopify, { modal })`) has only declared members. The
 * script is type-checked as JavaScript (checkJs) with both packages' globals; only what touches `shopify` is reported
 * (the rest of the script is plain DOM code, not the subject here). Returns the problems, one line each.
 */
export function shopifyGlobalProblems(scripts: Record<string, string>): { problems: string[]; members: Set<string> } {
  const files: Record<string, string> = { [path.join(root, 'test/admin/__shopify-globals__.d.ts')]: `${PACKAGE_TYPES}export {};\n` };
  const names = new Map<string, string>();
  for (const [name, text] of Object.entries(scripts)) {
    const file = path.join(root, `test/admin/__script-${names.size}__.js`);
    files[file] = text;
    names.set(file, name);
  }
  const program = programWith(files, { ...compilerOptions, allowJs: true, checkJs: true, strict: false, noImplicitAny: false });
  const checker = program.getTypeChecker();
  const problems: string[] = [];
  const members = new Set<string>();
  for (const [file, name] of names) {
    const source = program.getSourceFile(file)!;
    const where = (node: ts.Node) => `${name}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const spans: [number, number][] = [];
    const isGlobal = (id: ts.Identifier) => {
      const symbol = checker.getSymbolAtLocation(id);
      return Boolean(symbol && declaredIn(symbol, appBridgeDir));
    };
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node)) {
        // `shopify.x.y` and `window.shopify.x.y`: each member after `shopify` must be one App Bridge declares.
        const chain: ts.PropertyAccessExpression[] = [];
        let e: ts.Expression = node;
        while (ts.isPropertyAccessExpression(e)) {
          chain.unshift(e);
          e = e.expression;
        }
        const start = ts.isIdentifier(e) && e.text === 'shopify' ? 0 : chain.findIndex((c) => c.name.text === 'shopify' && ts.isIdentifier(c.expression) && c.expression.text === 'window') + 1;
        const base = start === 0 ? e : chain[start - 1]?.name;
        if (base && ts.isIdentifier(base) && base.text === 'shopify' && (start > 0 || isGlobal(base))) {
          spans.push([chain[start]?.getStart(source) ?? base.getStart(source), node.parent && ts.isCallExpression(node.parent) ? node.parent.getEnd() : node.getEnd()]);
          for (const c of chain.slice(start)) {
            const symbol = checker.getSymbolAtLocation(c.name);
            const text = c.getText(source).replace(/^window\./, '');
            if (!symbol || !declaredIn(symbol, appBridgeDir)) problems.push(`${where(c)}: ${text} is not declared by @shopify/app-bridge-types`);
            else members.add(text);
          }
        }
      }
      // A stand-in filling the global: `window.shopify = {...}`, `Object.assign(shopify, {...})`.
      const filled =
        ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && /^(window\.)?shopify$/.test(node.left.getText(source)) && ts.isObjectLiteralExpression(node.right)
          ? node.right
          : ts.isCallExpression(node) && node.expression.getText(source) === 'Object.assign' && node.arguments[0]?.getText(source) === 'shopify' && node.arguments[1] && ts.isObjectLiteralExpression(node.arguments[1])
            ? node.arguments[1]
            : undefined;
      if (filled) checkFilled(filled, shopifyType(), 'shopify');
      ts.forEachChild(node, visit);
    };
    const shopifyType = (): ts.Type => {
      const global = checker.getSymbolsInScope(source, ts.SymbolFlags.Variable).find((s) => s.name === 'shopify' && declaredIn(s, appBridgeDir));
      return checker.getTypeOfSymbol(global!);
    };
    const literalOf = (node: ts.Node): ts.ObjectLiteralExpression | undefined => {
      const symbol = ts.isShorthandPropertyAssignment(node) ? checker.getShorthandAssignmentValueSymbol(node) : ts.isPropertyAssignment(node) && ts.isIdentifier(node.initializer) ? checker.getSymbolAtLocation(node.initializer) : undefined;
      const declaration = symbol?.valueDeclaration;
      if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer && ts.isObjectLiteralExpression(declaration.initializer)) return declaration.initializer;
      return ts.isPropertyAssignment(node) && ts.isObjectLiteralExpression(node.initializer) ? node.initializer : undefined;
    };
    const checkFilled = (literal: ts.ObjectLiteralExpression, type: ts.Type, label: string): void => {
      for (const p of literal.properties) {
        const key = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
        if (!key) continue;
        const member = type.getProperty(key);
        if (!member) {
          problems.push(`${where(p)}: ${label}.${key} (put in the global) is not declared by @shopify/app-bridge-types`);
          continue;
        }
        members.add(`${label}.${key}`);
        const inner = literalOf(p);
        if (inner) checkFilled(inner, checker.getTypeOfSymbol(member).getNonNullableType(), `${label}.${key}`);
      }
    };
    visit(source);
    for (const d of program.getSemanticDiagnostics(source)) {
      if (d.start === undefined || !spans.some(([from, to]) => d.start! >= from && d.start! < to)) continue;
      problems.push(`${name}:${source.getLineAndCharacterOfPosition(d.start).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return { problems, members };
}

const LIFECYCLE = new Set(['constructor', 'connectedCallback', 'disconnectedCallback', 'attributeChangedCallback', 'adoptedCallback', 'formAssociatedCallback', 'formResetCallback', 'formDisabledCallback', 'formStateRestoreCallback']);

/**
 * What a stand-in's elements offer to a page's script: each public method of a class it defines for an App Bridge or
 * Polaris element (`customElements.define('ui-modal', class { show() ... })`) must be one the packages declare on that
 * element (`UIModalElement.show`), so no page can come to rely on something only the stand-in has. Lifecycle callbacks
 * aside; a method whose name starts with `#` or `_` counts as private. Returns the problems and the methods seen.
 */
export function standInElementProblems(scripts: Record<string, string>): { problems: string[]; methods: Set<string> } {
  const files: Record<string, string> = { [path.join(root, 'test/admin/__shopify-globals__.d.ts')]: `${PACKAGE_TYPES}export {};\n` };
  const names = new Map<string, string>();
  for (const [name, text] of Object.entries(scripts)) {
    const file = path.join(root, `test/admin/__stand-in-${names.size}__.js`);
    files[file] = text;
    names.set(file, name);
  }
  const program = programWith(files, { ...compilerOptions, allowJs: true, checkJs: false });
  const checker = program.getTypeChecker();
  const { elements } = shopifyContracts();
  const problems: string[] = [];
  const methods = new Set<string>();
  for (const [file, name] of names) {
    const source = program.getSourceFile(file)!;
    const interfaces = checker.getSymbolsInScope(source, ts.SymbolFlags.Interface);
    const declaredType = (interfaceName: string) => {
      const symbol = interfaces.find((s) => s.name === interfaceName);
      return symbol && checker.getDeclaredTypeOfSymbol(symbol);
    };
    const tagMap = declaredType('HTMLElementTagNameMap');
    const elementType = (tag: string): ts.Type | undefined => {
      const own = tagMap?.getProperty(tag);
      if (own && declaredIn(own, polarisDir)) return checker.getTypeOfSymbol(own);
      // App Bridge's elements are global interfaces: ui-modal → UIModalElement, s-app-nav → SAppNavElement.
      return declaredType(`${tag.split('-').map((p) => (p === 'ui' ? 'UI' : p[0]!.toUpperCase() + p.slice(1))).join('')}Element`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.getText(source) === 'customElements.define' && node.arguments.length >= 2) {
        const [tagNode, classNode] = node.arguments;
        const tag = tagNode && (ts.isStringLiteral(tagNode) || ts.isNoSubstitutionTemplateLiteral(tagNode)) ? tagNode.text : undefined;
        if (tag && classNode && ts.isClassExpression(classNode) && elements.has(tag)) {
          const type = elementType(tag);
          for (const member of classNode.members) {
            if (!ts.isMethodDeclaration(member) || !member.name || ts.isPrivateIdentifier(member.name)) continue;
            const method = member.name.getText(source);
            if (LIFECYCLE.has(method) || method.startsWith('_')) continue;
            methods.add(`${tag}.${method}`);
            if (!type?.getProperty(method)) problems.push(`${name}:${source.getLineAndCharacterOfPosition(member.getStart(source)).line + 1}: <${tag}>.${method}() is not declared for the element by the packages`);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { problems, methods };
}
