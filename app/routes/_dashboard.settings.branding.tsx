// /settings/branding: the company's name, logo and accent colour, shown on the hosted
// forms, the thank-you, support and login pages, and in every email (owners and admins).
// A plain multipart form post (a file input), validated in the browser with Conform too.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { BrandFormSchema, LOGO_MAX_BYTES } from "~/brand/brand-schema";
import { getBrand, updateBrand } from "~/brand/brand.server";
import { ActionNotice } from "~/components/ActionNotice";
import { FieldError } from "~/components/form-builder/shared";
import { RouteError } from "~/components/RouteError";
import { fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { authorize } from "~/staff/auth.server";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { readBoundedFormData } from "~/utils/http/multipart.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Branding · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "branding.manage");
  return { brand: await getBrand() };
});

type Answer = { reply: SubmissionResult<string[]>; done?: string; error?: string };

const TOO_LARGE = "The logo is larger than 512 KiB.";

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const audit = auditor(context, await authorize(request, "branding.manage"));
  let form: FormData;
  try {
    form = await readBoundedFormData(request, LOGO_MAX_BYTES + 16 * 1024);
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    return data<Answer>(
      { reply: { status: "error", error: { logo: [TOO_LARGE] } }, error: TOO_LARGE },
      { status: 413 },
    );
  }
  const submission = parseWithZod(form, { schema: BrandFormSchema });
  if (submission.status !== "success") return data<Answer>({ reply: submission.reply() }, { status: 422 });
  const file = form.get("logo");
  const { name, accentColor, removeLogo } = submission.value;
  try {
    await updateBrand(
      { name, accentColor, ...(removeLogo ? { logo: null } : {}) },
      audit,
      !removeLogo && file instanceof File && file.size > 0
        ? { bytes: Buffer.from(await file.arrayBuffer()) }
        : undefined,
    );
    return data<Answer>({ reply: submission.reply(), done: "The branding was saved." });
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const reply = submission.reply({ fieldErrors: fieldErrorsFrom(thrown.details) });
    return data<Answer>({ reply, error: thrown.message }, { status: statusOf(thrown) });
  }
});

export default function BrandingPage() {
  const { brand } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer | undefined;
  const saving = useNavigation().state === "submitting";
  const [form, fields] = useForm({
    id: "branding",
    lastResult: answer?.reply,
    defaultValue: { name: brand.name, accentColor: brand.accentColor },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: BrandFormSchema }),
  });
  const errorOf = (name: string) => form.allErrors[name]?.join(" ");
  const described = (name: string) =>
    errorOf(name) ? { "aria-invalid": true as const, "aria-describedby": `branding-${name}-error` } : {};
  return (
    <>
      <h1>Branding</h1>
      <p className="muted">
        Your company&apos;s name, logo and colour on the hosted forms, the thank-you, support and login pages, and in
        every email.
      </p>
      <ActionNotice done={answer?.done} error={answer?.error} />
      <section className="card" aria-labelledby="branding-heading">
        <h2 id="branding-heading">Brand</h2>
        <Form method="post" encType="multipart/form-data" aria-label="Branding" {...getFormProps(form)}>
          <label htmlFor="branding-name">Company name</label>
          <input
            id="branding-name"
            name="name"
            maxLength={100}
            defaultValue={fields.name.initialValue as string}
            {...described("name")}
          />
          <FieldError id="branding-name-error" message={errorOf("name")} />
          <label htmlFor="branding-accentColor">
            Accent colour (buttons and links; white text must stay readable on it)
          </label>
          <input
            id="branding-accentColor"
            name="accentColor"
            type="color"
            defaultValue={fields.accentColor.initialValue as string}
            {...described("accentColor")}
          />
          <FieldError id="branding-accentColor-error" message={errorOf("accentColor")} />
          {brand.logoUrl ? (
            <p>
              <img src={brand.logoUrl} alt="The current logo" className="brand-logo" />
              <br />
              <input id="branding-removeLogo" name="removeLogo" type="checkbox" />{" "}
              <label htmlFor="branding-removeLogo">Remove the logo</label>
            </p>
          ) : null}
          <label htmlFor="branding-logo">Logo (PNG, JPEG, WebP or GIF, at most 512 KiB)</label>
          <input
            id="branding-logo"
            name="logo"
            type="file"
            accept="image/png,image/jpeg,image/webp,image/gif"
            {...described("logo")}
          />
          <FieldError id="branding-logo-error" message={errorOf("logo")} />
          <p>
            <button type="submit" disabled={saving}>
              {saving ? "Saving…" : "Save the branding"}
            </button>
          </p>
        </Form>
      </section>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
