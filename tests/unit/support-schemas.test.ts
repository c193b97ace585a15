// The support thread's schemas, as the API parses JSON and as Conform parses a form.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { MessageTextSchema, ReplySchema, StatusSchema } from "~/support/support-schemas";

function formReply(schema: typeof ReplySchema | typeof StatusSchema, fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return parseWithZod(form, { schema }).reply();
}

describe("MessageTextSchema", () => {
  it("trims, makes line endings \\n, and counts the limit after that", () => {
    expect(MessageTextSchema.parse("  Hello\r\nthere\rfriend \n")).toBe("Hello\nthere\nfriend");
    expect(MessageTextSchema.safeParse(`${"a\r\n".repeat(9_999)}a`).success).toBe(true);
    const long = MessageTextSchema.safeParse("a".repeat(20_001));
    expect(long.error?.issues.map((issue) => issue.message)).toEqual(["Use at most 20000 characters."]);
  });

  it("refuses control characters, a blank text and a missing one with its own words", () => {
    expect(MessageTextSchema.safeParse("a\u0000b").error?.issues[0].message).toMatch(/control characters/);
    expect(MessageTextSchema.safeParse(" \n\t ").error?.issues[0].message).toBe("Write a message.");
    expect(MessageTextSchema.safeParse(undefined).error?.issues[0].message).toBe("Write a message.");
  });
});

describe("the thread's forms through Conform", () => {
  it("names the message field for a blank reply (Conform reads it as absent)", () => {
    expect(formReply(ReplySchema, { intent: "reply", message: " \n " }).error).toEqual({
      message: ["Write a message."],
    });
  });

  it("names the status field for a status that does not exist", () => {
    expect(formReply(StatusSchema, { intent: "status", status: "archived" }).error).toEqual({
      status: ["Use open, pending or closed."],
    });
  });
});
