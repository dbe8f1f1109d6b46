// Preloaded into Portkey's gateway (node --import): its @hono/node-server `serve` listens on a
// port with no host, i.e. on every interface. The benchmark uses loopback only, so a listen
// without a host gets 127.0.0.1. Nothing else is changed, and nothing runs per request.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === 'number' && (args[1] === undefined || typeof args[1] === 'function')) {
    args.splice(1, args[1] === undefined ? 1 : 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
