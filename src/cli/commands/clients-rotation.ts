/**
 * `latchkey clients rotate-secret|end-overlap`: a client's secret replaced, the previous one
 * accepted beside it for `--overlap` so its developer can roll the new one out without an
 * outage (docs/decisions.md "Rotation with overlap"), and an overlap ended early (a previous
 * secret that leaked). A replaced public key takes `clients update --public-key --overlap`.
 */
import type { Command } from 'commander';
import { storeSettingNames } from '../config/config.ts';
import { durationSeconds } from '../duration.ts';
import { withRemote } from '../remote/target.ts';
import { print } from '../output.ts';
import { withSettings } from '../settings-options.ts';
import { printCredentials } from './client-view.ts';
import { clientsSource } from './clients-source.ts';

/** `--overlap 24h`: how long the previous credential stays valid; 0 ends it at once. */
export const overlapOption = (value: string) => durationSeconds(value, { zero: true });

export const OVERLAP_HELP =
  'keep the previous one valid this long beside the new one: 30m, 24h, 7d (at most 30d; default 0, refused at once)';

export function registerClientRotation(clients: Command): void {
  const store = (command: Command) => withRemote(withSettings(command, storeSettingNames));

  store(clients.command('rotate-secret'))
    .alias('rotate')
    .description('give a client a new secret (printed once); the old one stops working')
    .argument('<key>', 'client key')
    .option('--overlap <duration>', OVERLAP_HELP, overlapOption)
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  latchkey clients rotate-secret KEY --overlap 24h')
    .action(
      async (key: string, options: { overlap?: number; json?: boolean }, command: Command) => {
        const source = clientsSource(command);
        const client = await source.rotateSecret(key, { overlapSeconds: options.overlap });
        const overlap = (await source.overlaps(key)).find((o) => o.credential === 'secret');
        printCredentials(
          client,
          options.json === true,
          `New secret for client "${client.name}".`,
          overlap?.until,
        );
      },
    );

  store(clients.command('end-overlap'))
    .description("refuse a client's previous secret and public key now, before their overlap ends")
    .argument('<key>', 'client key')
    .action(async (key: string, _options: object, command: Command) => {
      const source = clientsSource(command);
      const running = await source.overlaps(key);
      await source.endOverlaps(key);
      print(
        running.length === 0
          ? `Client ${key} had no overlap running.`
          : `Client ${key}: its previous ${running.map((o) => (o.credential === 'secret' ? 'secret' : 'public key')).join(' and ')} is refused from now on.`,
      );
    });
}
