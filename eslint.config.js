// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, React and
// its hooks, import order, and the type-aware rules that catch what a server must not do
// (a promise nobody awaits, a promise where a callback belongs). Formatting is Prettier's.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import importX from "eslint-plugin-import-x";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "build/",
      // Another commit's build, for npm run bench's BENCH_COMPARE_BUILD (gitignored too).
      "build-*/",
      "app/generated/",
      "node_modules/",
      "bench/results/",
      "bench/.tmp/",
      "prisma/",
      "public/",
      "coverage/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: "module" },
    plugins: { "import-x": importX },
    rules: {
      "import-x/order": [
        "error",
        {
          groups: ["builtin", "external", "internal", ["parent", "sibling", "index"], "type"],
          pathGroups: [{ pattern: "~/**", group: "internal" }],
          alphabetize: { order: "asc", caseInsensitive: true },
        },
      ],
      "import-x/no-duplicates": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      // The input policy (app/utils/text-policy.ts) and its tests match control characters on purpose.
      "no-control-regex": "off",
    },
  },
  {
    // Sizes a reader can hold in mind (issue 13): split a module or a function past these.
    files: ["app/**/*.{ts,tsx}", "server/**/*.ts"],
    rules: {
      "max-lines": ["error", { max: 400, skipBlankLines: true, skipComments: true }],
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // SQL and the database's dialect are storage's (issue 29, item 5): an area calls a store.
    files: ["app/**/*.{ts,tsx}", "server/**/*.ts"],
    ignores: ["app/storage/**", "app/generated/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name=/^\\$(query|execute)Raw(Unsafe)?$/]",
          message: "Raw SQL lives in app/storage: add a store function there.",
        },
      ],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "~/storage/db.server",
              importNames: ["isPostgres", "isSqliteBusy"],
              message: "Dialect checks live in app/storage: add a store function there.",
            },
          ],
        },
      ],
    },
  },
  {
    // A route parses, authorises, calls an area and renders (issue 29): its pieces go to
    // app/components/ and its logic to an area before it grows past this.
    files: ["app/routes/**/*.{ts,tsx}"],
    rules: { "max-lines": ["error", { max: 250, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ["app/**/*.tsx", "tests/**/*.tsx"],
    ...react.configs.flat.recommended,
    ...react.configs.flat["jsx-runtime"],
    plugins: { react, "react-hooks": reactHooks },
    languageOptions: { ...react.configs.flat.recommended.languageOptions, globals: { ...globals.browser } },
    settings: { react: { version: "detect" } },
    rules: {
      ...react.configs.flat.recommended.rules,
      ...react.configs.flat["jsx-runtime"].rules,
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      "react/prop-types": "off",
    },
  },
  {
    // Tests read JSON answers whose shape is what they assert.
    files: ["tests/**/*.{ts,tsx}"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["public/**/*.js", "app/**/*.client.ts"],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
