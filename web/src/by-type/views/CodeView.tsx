/** Codes (installed, portable, legacy): how they run — executable, plugin, scripts — and their computer. */
import { Await } from '../../components/Await.js';
import type { TypeViewProps } from '../index.js';
import { useAttributes } from './contents.js';
import { Section } from './common.js';
import { NodeComputer, Setting } from './ComputerSettings.js';

/** The settings people look for first, in this order; the others follow as they come. */
const FIRST = [
  'filepath_executable',
  'remote_exec_path',
  'input_plugin',
  'with_mpi',
  'prepend_text',
  'append_text',
];

export default function CodeView({ node, api }: TypeViewProps) {
  const loaded = useAttributes({ node, api });
  return (
    <div class="bt-view" data-view="code">
      <Await loaded={loaded} what="the code's settings">
        {(attributes) => {
          const keys = [
            ...FIRST.filter((k) => k in attributes),
            ...Object.keys(attributes)
              .filter((k) => !FIRST.includes(k))
              .sort(),
          ];
          return (
            <>
              <Section title="Code settings" id="bt-code">
                <dl class="bt-facts" data-testid="code-settings">
                  {keys.map((k) => (
                    <Setting key={k} name={k} value={attributes[k]} />
                  ))}
                </dl>
              </Section>
              <NodeComputer api={api} computerId={node.dbcomputer_id} />
            </>
          );
        }}
      </Await>
    </div>
  );
}
