/** RemoteData: where the folder is on which computer (its files are on that machine, not in the data). */
import { Await } from '../../components/Await.js';
import type { TypeViewProps } from '../index.js';
import { useAttributes } from './contents.js';
import { Section } from './common.js';
import { NodeComputer } from './ComputerSettings.js';

export default function RemoteView({ node, api }: TypeViewProps) {
  const loaded = useAttributes({ node, api });
  return (
    <div class="bt-view" data-view="remote">
      <Await loaded={loaded} what="the remote folder">
        {(attributes) => (
          <>
            <Section title="Remote folder" id="bt-remote">
              <p class="bt-big" data-testid="remote-path">
                {String(attributes.remote_path ?? '—')}
              </p>
              <p class="bt-muted">
                The files of a remote folder stay on the computer; they are not in the data.
              </p>
            </Section>
            <NodeComputer api={api} computerId={node.dbcomputer_id} />
          </>
        )}
      </Await>
    </div>
  );
}
