// The lead list's filter form: a GET form, so every filtered view is a URL that can be
// shared and bookmarked. Empty inputs are left out of that URL: the loader redirects
// to it without them, and with JavaScript they are dropped before navigating.
import { Form, Link, useSubmit } from "@remix-run/react";
import type { ErrorDetail } from "~/utils/domain-error";
import type { FormEvent } from "react";

export const FILTER_NAMES = [
  "formId",
  "from",
  "to",
  "q",
  "status",
  "ownerId",
  "tag",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "spam",
] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
const UTM_FILTERS = ["utm_source", "utm_medium", "utm_campaign"] as const satisfies readonly FilterName[];
export type FilterValues = Record<string, string>;

export type OwnerChoice = { id: string; label: string; active: boolean };

export function LeadFilters({
  values,
  errors,
  forms,
  statuses,
  owners,
  busy,
}: {
  values: FilterValues;
  errors: ErrorDetail[];
  forms: Array<{ id: string; name: string; status: string }>;
  statuses: readonly string[];
  owners: OwnerChoice[];
  busy: boolean;
}) {
  const withoutEmpty = useSubmitWithoutEmpty();
  const select = (name: FilterName, label: string, options: Array<[string, string]>) => (
    <FilterSelect name={name} label={label} options={options} values={values} errors={errors} />
  );
  const set = FILTER_NAMES.filter((name) => values[name]).length;
  return (
    // On a phone the filters fold behind one line so the first leads show on the first
    // screen (open when a filter is refused); from 60rem up they always show (styles.css).
    <details className="card fold" open={errors.length > 0}>
      <summary>{set > 0 ? `Filters (${set} set)` : "Filters"}</summary>
      <Form method="get" action="/leads" aria-label="Filter leads" onSubmit={withoutEmpty}>
        <div className="row">
          {select("formId", "Form", [
            ["", "All forms"],
            ...forms.map((form): [string, string] => [
              form.id,
              `${form.name}${form.status === "archived" ? " (archived)" : ""}`,
            ]),
          ])}
          <FilterInput name="from" label="From" type="date" values={values} errors={errors} />
          <FilterInput name="to" label="To" type="date" values={values} errors={errors} />
          <FilterInput name="q" label="Search" type="search" values={values} errors={errors} />
        </div>
        <div className="row">
          {select("status", "Status", [
            ["", "Any status"],
            ...statuses.map((status): [string, string] => [status, status]),
          ])}
          {select("ownerId", "Owner", [
            ["", "Anyone"],
            ["mine", "Mine"],
            ["none", "Unassigned"],
            ...owners.map((owner): [string, string] => [
              owner.id,
              owner.active ? owner.label : `${owner.label} (inactive)`,
            ]),
          ])}
          <FilterInput name="tag" label="Tag" values={values} errors={errors} list="lead-tags" />
          {select("spam", "Spam", [
            ["", "Hide spam"],
            ["true", "Only spam"],
            ["all", "Spam and not spam"],
          ])}
        </div>
        <CampaignFilters values={values} errors={errors} />
        {errors.some((error) => !FILTER_NAMES.includes(error.path as FilterName)) ? (
          <p className="error" role="alert">
            {errors.map((error) => `${error.path}: ${error.message}`).join(" ")}
          </p>
        ) : null}
        <p className="actions">
          <button type="submit" disabled={busy}>
            {busy ? "Filtering…" : "Filter"}
          </button>
          <Link to="/leads">Clear filters</Link>
        </p>
      </Form>
    </details>
  );
}

/**
 * Campaign filters are for some days, not every day: folded away (a shorter panel on a
 * phone) unless one is set or refused. Folded inputs are still sent with the form.
 */
function CampaignFilters({ values, errors }: { values: FilterValues; errors: ErrorDetail[] }) {
  const open = UTM_FILTERS.some((name) => values[name] || errors.some((error) => error.path === name));
  return (
    <details className="more-filters" open={open}>
      <summary>Campaign filters (UTM values)</summary>
      <div className="row">
        {UTM_FILTERS.map((name) => (
          <FilterInput key={name} name={name} label={name} values={values} errors={errors} />
        ))}
      </div>
    </details>
  );
}

/** With JavaScript, the filter form navigates to its URL without the empty inputs. */
function useSubmitWithoutEmpty() {
  const submit = useSubmit();
  return (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(event.currentTarget)) {
      if (typeof value === "string" && value !== "") params.append(name, value);
    }
    submit(params, { method: "get", action: "/leads" });
  };
}

function FilterSelect({
  name,
  label,
  options,
  values,
  errors,
}: {
  name: FilterName;
  label: string;
  options: Array<[string, string]>;
  values: FilterValues;
  errors: ErrorDetail[];
}) {
  const invalid = errors.some((candidate) => candidate.path === name);
  return (
    <div>
      <label htmlFor={`filter-${name}`}>{label}</label>
      <select
        id={`filter-${name}`}
        name={name}
        defaultValue={values[name]}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? `filter-${name}-error` : undefined}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      <FieldError name={name} errors={errors} />
    </div>
  );
}

function FieldError({ name, errors }: { name: FilterName; errors: ErrorDetail[] }) {
  const error = errors.find((candidate) => candidate.path === name)?.message;
  return error ? (
    <p id={`filter-${name}-error`} className="field-error">
      {error}
    </p>
  ) : null;
}

function FilterInput({
  name,
  label,
  type = "text",
  list,
  values,
  errors,
}: {
  name: FilterName;
  label: string;
  type?: string;
  list?: string;
  values: FilterValues;
  errors: ErrorDetail[];
}) {
  const invalid = errors.some((candidate) => candidate.path === name);
  return (
    <div>
      <label htmlFor={`filter-${name}`}>{label}</label>
      <input
        id={`filter-${name}`}
        name={name}
        type={type}
        list={list}
        defaultValue={values[name]}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? `filter-${name}-error` : undefined}
      />
      <FieldError name={name} errors={errors} />
    </div>
  );
}

/** The tags in use, suggested by the filter's and the bulk form's tag inputs. */
export function TagSuggestions({ tags }: { tags: string[] }) {
  return (
    <datalist id="lead-tags">
      {tags.map((tag) => (
        <option key={tag} value={tag} />
      ))}
    </datalist>
  );
}
