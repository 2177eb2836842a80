import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import { DeliveryError } from './delivery-error.ts';
import type { RenderedDashboardFile } from './renderer.ts';
import { postSignedWebhook, signedHeaders, type WebhookTarget } from './signed-webhook.ts';

export { DeliveryError } from './delivery-error.ts';
export { type WebhookTarget, webhookSignature } from './signed-webhook.ts';

/**
 * The two ways a rendered dashboard leaves Tessera (DESIGN.md "Notifications and rendering"):
 * email over SMTP (nodemailer, TESSERA_SMTP_URL) and an HTTP POST to a webhook, signed with
 * HMAC-SHA256. Each send carries a stable id of its delivery key (notification, fire time,
 * recipient): the email's Message-ID and the webhook's `Tessera-Delivery` header, so that a
 * receiver can drop the one duplicate a crash between the send and its record could cause.
 */

export interface DeliveryMessage {
  notificationId: number;
  deploymentId: number;
  dashboardId: number;
  dashboardPublicId: string;
  fireTime: Date;
  timezone: string;
  /** The delivery key's text, `n{id}:{fire time}:{recipient key}`. */
  deliveryId: string;
  dashboardUrl: string;
  file: RenderedDashboardFile;
}

export interface EmailTarget {
  address: string;
  name: string | null;
}

export interface Channels {
  email(target: EmailTarget, message: DeliveryMessage): Promise<void>;
  webhook(target: WebhookTarget, message: DeliveryMessage): Promise<void>;
  close(): void;
}

export interface ChannelSettings {
  smtpUrl: string | null;
  smtpFrom: string;
  /** Webhook request timeout. */
  webhookTimeoutMs?: number;
  /** SMTP connections kept open and used at once. */
  smtpConnections?: number;
}

export function createChannels(settings: ChannelSettings): Channels {
  const transport = settings.smtpUrl ? smtpTransport(settings.smtpUrl, settings.smtpConnections) : null;
  const domain = fromDomain(settings.smtpFrom);
  return {
    async email(target, message) {
      if (!transport)
        throw new DeliveryError(
          'No SMTP server is configured (set TESSERA_SMTP_URL); the email was not sent',
          false,
        );
      try {
        await (await transport).sendMail(composeEmail(settings.smtpFrom, domain, target, message));
      } catch (error) {
        const e = error as { responseCode?: number; message?: string };
        // 5xx SMTP replies are permanent (RFC 5321 section 4.2.1); everything else may pass.
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        throw new DeliveryError(`SMTP: ${e.message ?? String(error)}`, !permanent);
      }
    },
    async webhook(target, message) {
      await postSignedWebhook(target, message.deliveryId, webhookBody(message), settings.webhookTimeoutMs);
    },
    close() {
      transport?.then((t) => t.close()).catch(() => undefined);
    },
  };
}

/** A plain message of another module (issue 23 item 6: alerts), sent over the same SMTP pool settings. */
export interface PlainMail {
  subject: string;
  text: string;
  html: string;
  /** A stable key of the send: the Message-ID's hash, so a receiver can drop a duplicate. */
  deliveryId: string;
  headers?: Record<string, string>;
}

export interface Mailer {
  send(target: EmailTarget, mail: PlainMail): Promise<void>;
  close(): void;
}

/**
 * The email channel for messages that are no dashboard file (alerts): the same transport, the
 * same From and the same error rules (DeliveryError, retryable unless the server answered 5xx).
 */
export function createMailer(settings: ChannelSettings): Mailer {
  const transport = settings.smtpUrl ? smtpTransport(settings.smtpUrl, settings.smtpConnections) : null;
  const domain = fromDomain(settings.smtpFrom);
  return {
    async send(target, mail) {
      if (!transport)
        throw new DeliveryError(
          'No SMTP server is configured (set TESSERA_SMTP_URL); the email was not sent',
          false,
        );
      try {
        await (await transport).sendMail({
          from: settings.smtpFrom,
          to: target.name ? { name: target.name, address: target.address } : target.address,
          subject: mail.subject,
          messageId: `<${createHash('sha256').update(mail.deliveryId).digest('hex').slice(0, 32)}@${domain}>`,
          headers: mail.headers ?? {},
          text: mail.text,
          html: mail.html,
        });
      } catch (error) {
        const e = error as { responseCode?: number; message?: string };
        const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
        throw new DeliveryError(`SMTP: ${e.message ?? String(error)}`, !permanent);
      }
    },
    close() {
      transport?.then((t) => t.close()).catch(() => undefined);
    },
  };
}

/**
 * The SMTP pool, with nodemailer (some 60 files) loaded only when TESSERA_SMTP_URL is set, and
 * then beside the start rather than before it (issue 20, item 6). A failure to load or
 * configure is the first send's (an SMTP error), never an unhandled rejection.
 */
function smtpTransport(url: string, connections: number | undefined): Promise<Transporter> {
  const transport = import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({
      url,
      pool: true,
      maxConnections: connections ?? 5,
      maxMessages: 1000,
    } as never),
  );
  transport.catch(() => undefined);
  return transport;
}

export function composeEmail(from: string, domain: string, target: EmailTarget, m: DeliveryMessage) {
  const extension = m.file.format;
  const when = formatFireTime(m.fireTime, m.timezone);
  const failed = m.file.failedWidgets;
  const html = (s: string) =>
    s.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
    );
  const warning =
    failed.length === 0
      ? ''
      : `<p style="color:#b42318">${failed.length} widget${failed.length === 1 ? '' : 's'} could not be shown: ` +
        `${failed.map((w) => html(w.title || w.id)).join(', ')}.</p>`;
  const image = m.file.png
    ? `<p><a href="${html(m.dashboardUrl)}"><img src="cid:dashboard@tessera" alt="${html(m.file.title)}" ` +
      `width="${Math.min(m.file.width, 1200)}" style="max-width:100%;height:auto;border:0"/></a></p>`
    : '';
  const attachments: { filename: string; content: Buffer; contentType: string; cid?: string }[] = [];
  if (m.file.png)
    attachments.push({
      filename: 'dashboard-preview.png',
      content: m.file.png,
      contentType: 'image/png',
      cid: 'dashboard@tessera',
    });
  attachments.push({
    filename: `dashboard.${extension}`,
    content: m.file.bytes,
    contentType: m.file.contentType,
  });
  return {
    from,
    to: target.name ? { name: target.name, address: target.address } : target.address,
    subject: `${m.file.title} (${when})`,
    messageId: `<${createHash('sha256').update(m.deliveryId).digest('hex').slice(0, 32)}@${domain}>`,
    headers: { 'X-Tessera-Notification': String(m.notificationId), 'X-Tessera-Delivery': m.deliveryId },
    text:
      `${m.file.title}, as of ${when}.\n\nOpen the dashboard: ${m.dashboardUrl}\n` +
      (failed.length > 0
        ? `\n${failed.length} widget(s) could not be shown: ${failed.map((w) => w.title || w.id).join(', ')}\n`
        : '') +
      `\nThe ${extension.toUpperCase()} is attached.\n`,
    html:
      `<p><strong>${html(m.file.title)}</strong>, as of ${html(when)}.</p>${warning}${image}` +
      `<p><a href="${html(m.dashboardUrl)}">Open the dashboard</a></p>`,
    attachments,
  };
}

/**
 * The webhook request: JSON with the delivery's details and the file in base64, signed by
 * signed-webhook.ts (the scheme alerts' webhooks share).
 */
export function signedWebhook(secret: string, m: DeliveryMessage, now: Date) {
  const body = webhookBody(m);
  return { body, headers: signedHeaders(secret, m.deliveryId, body, now) };
}

function webhookBody(m: DeliveryMessage): string {
  return JSON.stringify({
    type: 'notification.delivered',
    deliveryId: m.deliveryId,
    notificationId: m.notificationId,
    deploymentId: m.deploymentId,
    dashboardId: m.dashboardId,
    dashboardPublicId: m.dashboardPublicId,
    title: m.file.title,
    fireTime: m.fireTime.toISOString(),
    dashboardUrl: m.dashboardUrl,
    format: m.file.format,
    contentType: m.file.contentType,
    filename: `dashboard.${m.file.format}`,
    width: m.file.width,
    height: m.file.height,
    failedWidgets: m.file.failedWidgets,
    file: m.file.bytes.toString('base64'),
  });
}

/** One formatter per time zone: building an Intl.DateTimeFormat costs more than a mail's other headers. */
const fireTimeFormats = new Map<string, Intl.DateTimeFormat>();

function formatFireTime(at: Date, timezone: string): string {
  let format = fireTimeFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      dateStyle: 'medium',
      timeStyle: 'short',
    });
    // Time zones are a bounded set (the IANA names a notification accepts).
    fireTimeFormats.set(timezone, format);
  }
  return `${format.format(at)} ${timezone}`;
}

function fromDomain(from: string): string {
  const match = /@([^\s>]+)/.exec(from);
  return match ? match[1] : 'tessera.local';
}
