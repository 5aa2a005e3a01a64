/**
 * A server started through npm (`npx quarry serve`, `npm start`) stops when npm does. npm runs the command under
 * `sh -c` and passes a SIGTERM it receives to that shell only, which exits without passing it on: the server
 * went on without a parent, holding its port. So, started by npm, the server looks whether the process that
 * started it is still there, and when it is gone it stops as on SIGTERM. Started otherwise (a terminal, nohup,
 * systemd, a script that leaves it running), it stays when its parent goes.
 */

/** How often the parent is looked for, in milliseconds. */
const LOOK_MS = 500;

export function stopWithNpm(): void {
  // npm sets npm_command (exec, start, run...) for what it runs.
  if (process.env.npm_command === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.stderr.write('quarry: npm, which started this server, has stopped; stopping too\n');
    process.kill(process.pid, 'SIGTERM');
  }, LOOK_MS);
  timer.unref();
}
