/** Users, each linking to the nodes they made. */
import { useExplorer } from '../context.js';
import { useLoad } from '../hooks.js';
import { userName } from '../format.js';
import type { User } from '../types.js';
import { Await } from '../components/Await.js';
import { Link } from '../components/Link.js';
import { ListTable } from '../components/ListTable.js';

export function UserList() {
  const { api } = useExplorer();
  const loaded = useLoad((signal) => api.get<{ users: User[] }>('/users/', undefined, { signal }), [api]);
  return (
    <>
      <h1>Users</h1>
      <Await loaded={loaded} what="the users">
        {(answer) => (
          <ListTable caption="Users" columns={['Name', 'Institution', 'pk', 'Nodes']}>
            {answer.data.users.map((u) => (
              <tr key={u.id}>
                <td>{userName(u)}</td>
                <td>{u.institution}</td>
                <td class="num">{u.id}</td>
                <td>
                  <Link path="/nodes" params={{ user: u.id }}>
                    their nodes
                  </Link>
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </Await>
    </>
  );
}
