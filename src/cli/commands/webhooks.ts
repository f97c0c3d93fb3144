/**
 * `latchkey webhooks`: the URLs the team's systems receive events at (docs/webhooks.md), and
 * the delivery log. `add` prints the signing secret once; the worker of `latchkey serve`
 * delivers. Each command works on the database or through a server's admin API
 * (webhooks-source.ts), printing the same either way.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { WebhookDelivery, WebhookSummary } from '../../provider/index.ts';
import { webhookEventNames } from '../../provider/index.ts';
import { storeSettingNames } from '../config/config.ts';
import type { SettingName } from '../config/config.ts';
import { fields, print, printJson, table, time } from '../output.ts';
import { withSettings } from '../settings-options.ts';
import { withRemote } from '../remote/target.ts';
import { webhooksSource } from './webhooks-source.ts';

function hookView(hook: WebhookSummary) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    // By `webhooks disable`, or by the receiver answering 410 Gone.
    status: hook.disabledAt === null ? 'enabled' : 'disabled',
    createdAt: time(hook.createdAt),
    disabledAt: hook.disabledAt === null ? null : time(hook.disabledAt),
  };
}

function deliveryState(delivery: WebhookDelivery): string {
  if (delivery.deliveredAt !== null) return 'delivered';
  if (delivery.nextAttemptAt === null) return 'given up';
  return 'pending';
}

function deliveryView(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    webhook: delivery.webhookId,
    event: delivery.type,
    eventId: delivery.eventId,
    state: deliveryState(delivery),
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus ?? delivery.lastError,
    nextAttemptAt: delivery.nextAttemptAt === null ? null : time(delivery.nextAttemptAt),
    deliveredAt: delivery.deliveredAt === null ? null : time(delivery.deliveredAt),
  };
}

function limit(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 10_000) {
    throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  }
  return number;
}

export function registerWebhooks(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('send events to your systems: add, list and remove webhooks; the delivery log');
  const store = (command: Command, more: readonly SettingName[] = []) =>
    withRemote(withSettings(command, [...storeSettingNames, ...more]));

  registerAdd(webhooks, store);

  store(webhooks.command('list'))
    .description('list webhooks (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const hooks = await webhooksSource(command).list();
      const rows = hooks.map(hookView);
      if (options.json === true) return printJson(rows);
      if (rows.length === 0) return print('No webhooks.');
      print(
        table(
          ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
          rows.map((r) => [r.id, r.url, r.events.join(','), r.status, r.createdAt]),
        ),
      );
    });

  store(webhooks.command('remove'))
    .description('remove a webhook and its delivery log')
    .argument('<id>', 'the webhook id (wh_…)')
    .action(async (id: string, _options: object, command: Command) => {
      await webhooksSource(command).remove(id);
      print(`Removed webhook ${id}.`);
    });

  store(webhooks.command('enable'))
    .description('send to a webhook again after its receiver answered 410 Gone')
    .argument('<id>', 'the webhook id (wh_…)')
    .action(async (id: string, _options: object, command: Command) => {
      await webhooksSource(command).enable(id);
      print(`Enabled webhook ${id}.`);
    });

  store(webhooks.command('disable'))
    .description('stop sending to a webhook (its deliveries wait) until it is enabled')
    .argument('<id>', 'the webhook id (wh_…)')
    .action(async (id: string, _options: object, command: Command) => {
      await webhooksSource(command).disable(id);
      print(`Disabled webhook ${id}.`);
    });

  store(webhooks.command('update'))
    .description('change the events a webhook receives (the list is replaced)')
    .argument('<id>', 'the webhook id (wh_…)')
    .requiredOption('--events <names>', 'comma-separated event types, or * for all')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExample:\n  latchkey webhooks update wh_… --events grant.created,grant.revoked',
    )
    .action(async (id: string, options: { events: string; json?: boolean }, command: Command) => {
      const hook = await webhooksSource(command).setEvents(id, options.events.split(','));
      if (options.json === true) return printJson(hookView(hook));
      print(`Webhook ${hook.id} now receives: ${hook.events.join(',')}.`);
    });

  registerDeliveries(webhooks, store);
}

type WithStore = (command: Command, more?: readonly SettingName[]) => Command;

/** `webhooks add`: the hook, and its secret printed once. */
function registerAdd(webhooks: Command, store: WithStore): void {
  store(webhooks.command('add'), ['webhooks.allowPrivateAddresses'])
    .description('add a webhook (its signing secret is printed once)')
    .argument('<url>', 'where events are POSTed (http or https)')
    .requiredOption(
      '--events <names>',
      `comma-separated event types, or * for all: ${webhookEventNames.join(', ')}`,
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExample:\n  latchkey webhooks add https://siem.example/latchkey --events grant.created,grant.revoked,token.revoked,client.disabled',
    )
    .action(async (url: string, options: { events: string; json?: boolean }, command: Command) => {
      const { hook, secret } = await webhooksSource(command).add(url, options.events.split(','));
      if (options.json === true) return printJson({ ...hookView(hook), secret });
      print(`Added webhook ${hook.id}.`);
      print(
        fields([
          ['url', hook.url],
          ['events', hook.events.join(',')],
          ['secret', secret],
        ]),
      );
      print('The secret is shown this once: the receiver checks each signature with it.');
    });
}

/** `webhooks deliveries`: the delivery log, newest first. */
function registerDeliveries(webhooks: Command, store: WithStore): void {
  store(webhooks.command('deliveries'))
    .description('the delivery log, newest first: event, attempts, last status, next attempt')
    .argument('[id]', 'only this webhook')
    .option('--limit <count>', 'at most this many (default 100)', limit)
    .option('--json', 'print JSON')
    .action(
      async (
        id: string | undefined,
        options: { limit?: number; json?: boolean },
        command: Command,
      ) => {
        const found = await webhooksSource(command).deliveries({
          webhookId: id,
          limit: options.limit,
        });
        const rows = found.map(deliveryView);
        if (options.json === true) return printJson(rows);
        if (rows.length === 0) return print('No deliveries.');
        print(
          table(
            ['DELIVERY', 'WEBHOOK', 'EVENT', 'STATE', 'ATTEMPTS', 'LAST', 'NEXT', 'DELIVERED'],
            rows.map((r) => [
              r.id,
              r.webhook,
              r.event,
              r.state,
              String(r.attempts),
              r.lastStatus === null ? '-' : String(r.lastStatus),
              r.nextAttemptAt ?? '-',
              r.deliveredAt ?? '-',
            ]),
          ),
        );
      },
    );
}
