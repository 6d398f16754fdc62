// Validates rendered custom resources against their CRDs' schemas, as published
// by the kubernetes-models packages pinned in tools/crd-schemas (installed into
// .tools/crd-schemas by tools/crd-schemas.sh). Each package holds, per kind, a
// runtime validator (types, enums, patterns, bounds) and a TypeScript interface;
// the validator alone lets unknown fields pass, so every resource is also
// written as a typed object literal and compiled: TypeScript refuses a property
// its type does not declare, at any depth. Strict, like kubernetes-validate.
//
//   node k8s/custom-resources.mjs <docs.json> <others.json>
//   node k8s/custom-resources.mjs --skipped "<apiVersion> <kind>"…
//
// docs.json holds a list of rendered documents; those no package has a schema
// for are written to others.json for the caller (built-in kinds, or kinds with
// no schema here). Exits non-zero, naming each resource and field, on any error.
// With --skipped, exits non-zero if any of the kinds k8s/check.sh skips has a
// schema here after all, so the list only holds what cannot be validated.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const toolDir = resolve(".tools/crd-schemas");
const modules = join(toolDir, "node_modules");
const [docsPath, othersPath] = process.argv.slice(2);

const schemaPackages = Object.keys(
  JSON.parse(readFileSync("tools/crd-schemas/package.json", "utf8")).dependencies,
).filter((name) => name.startsWith("@kubernetes-models/"));

// A kind's module in a package is laid out as <group>/<version>/<Kind>.js.
function schemaModule(doc) {
  const [group, version] = doc.apiVersion.includes("/") ? doc.apiVersion.split("/") : ["", doc.apiVersion];
  if (!group) return null;
  for (const name of schemaPackages) {
    const specifier = `${name}/${group}/${version}/${doc.kind}`;
    if (existsSync(join(modules, `${specifier}.js`))) return specifier;
  }
  return null;
}

if (docsPath === "--skipped") {
  const validatable = process.argv
    .slice(3)
    .map((entry) => entry.split(" "))
    .filter(([apiVersion, kind]) => schemaModule({ apiVersion, kind }));
  for (const [apiVersion, kind] of validatable) {
    console.error(`${kind} (${apiVersion}) has a schema in tools/crd-schemas: take it out of SKIPPED_KINDS`);
  }
  process.exit(validatable.length > 0 ? 1 : 0);
}

const docs = JSON.parse(readFileSync(docsPath, "utf8"));
const checked = [];
const others = [];
for (const doc of docs) {
  const specifier = schemaModule(doc);
  if (specifier) checked.push({ doc, specifier });
  else others.push(doc);
}
writeFileSync(othersPath, JSON.stringify(others));

const name = (doc) => `${doc.kind}/${doc.metadata?.name} (${doc.apiVersion})`;
let failed = false;

for (const { doc, specifier } of checked) {
  const module = await import(pathToFileURL(join(modules, `${specifier}.js`)).href);
  const Model = module[doc.kind];
  try {
    new Model(doc).validate();
  } catch (error) {
    console.error(`${name(doc)}: ${error.message}`);
    failed = true;
  }
}

if (checked.length > 0) {
  // One typed constant per resource, pretty-printed so a compiler error's line
  // falls inside the resource it belongs to.
  const lines = [];
  const owners = [];
  checked.forEach(({ doc, specifier }, i) => {
    lines.push(`import type { I${doc.kind} as T${i} } from "${specifier}";`);
  });
  checked.forEach(({ doc }, i) => {
    const body = `export const resource${i}: T${i} = ${JSON.stringify(doc, null, 2)};`.split("\n");
    for (let k = 0; k < body.length; k++) owners[lines.length + k] = doc;
    lines.push(...body);
  });
  const work = mkdtempSync(join(toolDir, "check-"));
  const source = join(work, "resources.mts");
  writeFileSync(source, lines.join("\n") + "\n");
  try {
    execFileSync(
      join(modules, ".bin", "tsc"),
      ["--noEmit", "--strict", "--skipLibCheck", "--module", "nodenext", "--moduleResolution", "nodenext", source],
      { encoding: "utf8", stdio: "pipe" },
    );
  } catch (error) {
    for (const line of `${error.stdout}${error.stderr}`.split("\n").filter(Boolean)) {
      const at = /\.mts\((\d+),\d+\): (.*)$/.exec(line);
      console.error(at ? `${name(owners[Number(at[1]) - 1])}: ${at[2]}` : line);
    }
    failed = true;
  } finally {
    execFileSync("rm", ["-rf", work]);
  }
}

for (const { doc } of checked) {
  if (!failed) console.log(`custom resource ${name(doc)}: valid against its CRD's schema (strict)`);
}
process.exit(failed ? 1 : 0);
