// A local mail store for the scripts that drive the Worker from outside (`npm run check:dashboard`): an SMTP server on
// 127.0.0.1 (smtp-server, plain, no TLS and no authentication: the Worker is given SMTP_SECURITY=none) that parses
// every message it accepts (mailparser) and keeps it in memory, so a check can wait for "the e-mail to X" and read
// the link in it, as a person would read their inbox.
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * One message the store accepted.
 * @typedef {{ to: string[], from: string, subject: string, text: string, html: string, receivedAt: number }} StoredMail
 *   `to`: the envelope recipients, lowercase; `text`/`html`: the message's parts ("" when absent)
 */

/**
 * Starts the store on a free 127.0.0.1 port.
 * @returns {Promise<{ port: number, messages: StoredMail[],
 *   waitFor: (match: (mail: StoredMail) => boolean, timeoutMs: number) => Promise<StoredMail>,
 *   close: () => Promise<void> }>} `waitFor` resolves with the first message (already received or arriving later)
 *   `match` accepts, and rejects with the recipients and subjects seen when none arrives within `timeoutMs`
 */
export async function startMailStore() {
  /** @type {StoredMail[]} */
  const messages = [];
  const waiters = new Set();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const stored = {
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            html: typeof mail.html === "string" ? mail.html : "",
            receivedAt: Date.now(),
          };
          messages.push(stored);
          for (const waiter of waiters) waiter(stored);
          callback();
        })
        .catch((err) => callback(err));
    },
  });
  await new Promise((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.server.address();

  function waitFor(match, timeoutMs) {
    const found = messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = (mail) => {
        if (!match(mail)) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(mail);
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        const seen = messages.map((m) => `${m.to.join(",")}: ${m.subject}`).join(" | ") || "none";
        reject(new Error(`no matching e-mail within ${timeoutMs / 1000} s (received: ${seen})`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  }

  return {
    port,
    messages,
    waitFor,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
