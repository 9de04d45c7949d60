import { describe, expect, it } from "vitest";
import { sendOnChannel, type TransportSettings } from "../../src/alerts/channels";
import type { AlertFacts } from "../../src/alerts/messages";
import { newId } from "../../src/lib/ids";
import { localTransport, received, receiverUrl } from "../helpers/alert-receivers";

function facts(id: string): AlertFacts {
  return {
    alert_id: id,
    condition: "free_time_ending",
    container_id: newId(),
    container_number: "MSCU1234565",
    bill_of_lading: "MEDUXX123",
    scac: "MSCU",
    port_code: "USLAX",
    port_name: "Los Angeles",
    what: "Free time ends tomorrow (last free day 2026-12-02) and the box is still at the terminal.",
    cost: "USD 150.00 in demurrage to date; USD 300.00 if out tomorrow",
    charge: {
      kind: "demurrage",
      basis: "tariff",
      tariff_id: "tar_1",
      tariff_name: "MSC USLAX",
      last_free_day: "2026-12-02",
      chargeable_days: 1,
      currency_code: "USD",
      amount_to_date: "150.00",
      amount_if_out_tomorrow: "300.00",
    },
    terminal_fee: null,
    what_to_do: "Book a pickup appointment.",
    due_on: "2026-12-02",
    occurred_at: "2026-12-01T10:00:00Z",
  };
}

const transport = (): TransportSettings => ({ smtp: null, allowInsecureHosts: [], ...localTransport() });

describe("alert channels over their real protocols, at local receivers", () => {
  it("e-mails over SMTP with plain and HTML parts saying the box, what happened, the cost and what to do", async () => {
    const id = newId();
    const to = `ops-${id}@example.com`;
    const attempt = await sendOnChannel(transport(), { type: "email", target: to, secret: null }, facts(id), id);
    expect(attempt).toEqual({ succeeded: true, error: null, gone: false });
    const mails = (await received()).filter((m) => m.channel === "smtp" && m.to === to);
    expect(mails).toHaveLength(1);
    const mail = mails[0];
    expect(mail?.subject).toBe("Free time ending: MSCU1234565");
    expect(mail?.body).toContain("Box: MSCU1234565 (BL MEDUXX123 · MSCU · Los Angeles)");
    expect(mail?.body).toContain("Cost: USD 150.00 in demurrage to date; USD 300.00 if out tomorrow");
    expect(mail?.body).toContain('Basis: free time calculated from tariff "MSC USLAX" (tar_1)');
    expect(mail?.body).toContain("What to do: Book a pickup appointment.");
    expect(mail?.html).toContain("<li>What happened: Free time ends tomorrow");
    expect(mail?.headers["x-alert-id"]).toBe(id);
  });

  it("posts Slack Block Kit and a Teams Adaptive Card", async () => {
    const id = newId();
    const slack = await sendOnChannel(
      transport(),
      { type: "slack", target: receiverUrl(`/slack/${id}`), secret: null },
      facts(id),
      id,
    );
    const teams = await sendOnChannel(
      transport(),
      { type: "teams", target: receiverUrl(`/teams/${id}`), secret: null },
      facts(id),
      id,
    );
    expect(slack.succeeded).toBe(true);
    expect(teams.succeeded).toBe(true);
    const got = await received();
    const s = got.filter((r) => r.to === `/slack/${id}`);
    const t = got.filter((r) => r.to === `/teams/${id}`);
    expect(s).toHaveLength(1);
    expect(t).toHaveLength(1);
    const slackBody = JSON.parse(s[0]?.body ?? "{}");
    expect(slackBody.text).toContain("Free time ending: MSCU1234565");
    expect(slackBody.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "Free time ending: MSCU1234565" },
    });
    const teamsBody = JSON.parse(t[0]?.body ?? "{}");
    expect(teamsBody.type).toBe("message");
    expect(teamsBody.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(teamsBody.attachments[0].content.type).toBe("AdaptiveCard");
    expect(teamsBody.attachments[0].content.body[1].facts[2]).toEqual({
      title: "Cost",
      value: "USD 150.00 in demurrage to date; USD 300.00 if out tomorrow",
    });
    expect(teamsBody.attachments[0].content.body[1].facts[3]).toEqual({
      title: "Basis",
      value: 'free time calculated from tariff "MSC USLAX" (tar_1)',
    });
    expect(slackBody.blocks[1].text.text).toContain(
      "*Cost:* USD 150.00 in demurrage to date; USD 300.00 if out tomorrow",
    );
  });

  it("refuses a URL the SSRF rules refuse, and reports a failing receiver", async () => {
    const id = newId();
    const refused = await sendOnChannel(
      { smtp: null, allowInsecureHosts: [] },
      { type: "slack", target: receiverUrl(`/slack/${id}`), secret: null },
      facts(id),
      id,
    );
    expect(refused.succeeded).toBe(false);
    expect(refused.error).toContain("url not allowed");
    const failing = await sendOnChannel(
      transport(),
      { type: "teams", target: receiverUrl(`/fail/${id}`), secret: null },
      facts(id),
      id,
    );
    expect(failing).toMatchObject({ succeeded: false, error: "HTTP 500" });
    const noSmtp = await sendOnChannel(
      { smtp: null, allowInsecureHosts: [] },
      { type: "email", target: "a@example.com", secret: null },
      facts(id),
      id,
    );
    expect(noSmtp.error).toContain("SMTP_HOST is unset");
  });
});
