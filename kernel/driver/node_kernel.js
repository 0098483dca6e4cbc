// agent-tools JavaScript kernel driver (embedded in the Go binary, run with
// node -e). Requests on fd 3, messages on fd 4, newline-delimited JSON; the
// messages and their fields are listed once, in the table in
// kernel/protocol.go, and kernel/protocol_test.go checks this driver
// against it.
//
// Cells run through V8's REPL mode via the in-process inspector
// (Runtime.evaluate {replMode: true, awaitPromise: true}): let/const may be
// re-declared across cells, top-level await works and the completion value
// of the last statement comes back. A worker thread reads fd 3, so an
// interrupt reaches us even while a cell spins: it asks the main thread
// first and, when that does not answer (busy in JS), terminates the running
// script with Runtime.terminateExecution, which keeps the context.
(function agentToolsKernel() {
'use strict';
const fs = require('node:fs');
const util = require('node:util');
const inspector = require('node:inspector');
const { Worker } = require('node:worker_threads');
const Module = require('node:module');
const path = require('node:path');

const MSG_FD = 4;

function send(msg) {
  let data = Buffer.from(JSON.stringify(msg) + '\n', 'utf8');
  while (data.length > 0) {
    let n;
    try {
      n = fs.writeSync(MSG_FD, data);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      throw e;
    }
    data = data.subarray(n);
  }
}

let cell = 0; // id of the running cell, 0 when idle
let calls = 0;
const pending = new Map(); // call id -> {resolve, reject}
let cancelCell = null; // rejects the running cell's wait on interrupt

// ack[0] is set to 1 by the main thread when it saw an interrupt.
const ackBuf = new SharedArrayBuffer(4);
const ack = new Int32Array(ackBuf);

const worker = new Worker(`
const net = require('node:net');
const inspector = require('node:inspector');
const { parentPort, workerData } = require('node:worker_threads');
const ack = new Int32Array(workerData.ack);
const session = new inspector.Session();
session.connectToMainThread();
// A socket on fd 3 (not a blocking read) so that the process can exit
// while this thread waits.
const sock = new net.Socket({ fd: 3, readable: true, writable: false });
let acc = '';
sock.on('data', (chunk) => {
  acc += chunk.toString('utf8');
  let i;
  while ((i = acc.indexOf('\\n')) >= 0) {
    const line = acc.slice(0, i); acc = acc.slice(i + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.t === 'interrupt') {
      Atomics.store(ack, 0, 0);
      parentPort.postMessage({ req: msg });
      if (Atomics.wait(ack, 0, 0, 200) === 'timed-out') {
        session.post('Runtime.terminateExecution', () => {});
      }
    } else {
      parentPort.postMessage({ req: msg });
    }
  }
});
// The main thread gets {req} for each request and {} at the end of fd 3.
sock.on('end', () => parentPort.postMessage({}));
sock.on('error', () => parentPort.postMessage({}));
`, { eval: true, workerData: { ack: ackBuf } });
worker.unref();

worker.on('message', ({ req: msg }) => {
  if (!msg) process.exit(0); // fd 3 closed: agent-tools is done with us
  switch (msg.t) {
    case 'interrupt':
      Atomics.store(ack, 0, 1);
      Atomics.notify(ack, 0);
      if (cancelCell) cancelCell(new Error('interrupted'));
      break;
    case 'reply': {
      const p = pending.get(msg.call);
      if (!p) return; // a reply for a call of an interrupted cell
      pending.delete(msg.call);
      if (msg.error) p.reject(atCallSite(new Error(msg.error), p.site));
      else if (!msg.ok) p.reject(atCallSite(Object.assign(new Error(msg.text || 'tool failed'), { name: 'ToolError' }), p.site));
      else p.resolve(msg.text || '');
      break;
    }
    case 'exec':
      queue.push(msg);
      if (!running) runNext();
      break;
    default:
      send({ t: 'out', id: cell, name: 'stderr', text: `agent-tools kernel driver: ignored a request of unknown kind ${JSON.stringify(msg.t)}\n` });
  }
});

// User output goes to the protocol; fd 1 and 2 stay for child processes.
function capture(name) {
  return function write(chunk, encoding, cb) {
    if (typeof encoding === 'function') cb = encoding;
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text) send({ t: 'out', id: cell, name, text });
    if (typeof cb === 'function') process.nextTick(cb);
    return true;
  };
}
process.stdout.write = capture('stdout');
process.stderr.write = capture('stderr');
process.on('SIGINT', () => {}); // interrupts come over the protocol
process.on('uncaughtException', (e) => {
  send({ t: 'out', id: cell, name: 'stderr', text: 'Uncaught ' + (e && e.stack ? trimStack(e.stack) : String(e)) + '\n' });
});
process.on('unhandledRejection', (e) => {
  send({ t: 'out', id: cell, name: 'stderr', text: 'Unhandled rejection: ' + (e && e.stack ? trimStack(e.stack) : String(e)) + '\n' });
});

function format(v) {
  return typeof v === 'string' ? v : util.inspect(v, { depth: 4, maxArrayLength: 100, maxStringLength: 10000, breakLength: 100 });
}

globalThis.display = function display(...objs) {
  for (const o of objs) send({ t: 'display', id: cell, kind: 'text', mime: 'text/plain', text: format(o) });
};
globalThis.tool = function tool(name, args) {
  if (typeof name !== 'string' || !name) return Promise.reject(new TypeError('tool(name, args): name must be a non-empty string'));
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) return Promise.reject(new TypeError('tool(name, args): args must be an object'));
  const call = ++calls;
  const site = new Error(); // where the cell called tool(), for a failure's stack
  return new Promise((resolve, reject) => {
    pending.set(call, { resolve, reject, site });
    send({ t: 'call', id: cell, call, name, args });
  });
};
globalThis.require = Module.createRequire(path.join(process.cwd(), '/'));
globalThis.__agentToolsInspect = (v) => util.inspect(v, { depth: 4, maxArrayLength: 100, maxStringLength: 10000, breakLength: 100 });
globalThis.module = { exports: {} };
globalThis.exports = globalThis.module.exports;
globalThis.__filename = path.join(process.cwd(), '[eval]');
globalThis.__dirname = process.cwd();

const session = new inspector.Session();
session.connect();

function post(method, params) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

function primitive(ro) {
  switch (ro.type) {
    case 'undefined': return undefined;
    case 'bigint': return BigInt(ro.unserializableValue.replace(/n$/, ''));
    case 'number':
      if ('unserializableValue' in ro) return Number(ro.unserializableValue === '-0' ? -0 : ro.unserializableValue);
      return ro.value;
    default: return ro.value;
  }
}

async function inspectRemote(ro) {
  if (!ro.objectId) return util.inspect(primitive(ro), { depth: 4 });
  const r = await post('Runtime.callFunctionOn', {
    objectId: ro.objectId,
    functionDeclaration: 'function () { return globalThis.__agentToolsInspect(this); }',
    returnByValue: true,
  });
  return r.result.value;
}

// A stack frame of this driver (node -e runs it as [eval]) or of node's
// internals.
const driverFrame = /\[eval\]|\(node:|^\s+at node:/;
const frameLine = /^\s+at /;

// trimStack keeps the error's message and the cell's own frames: it drops
// the driver's frames in front of them (tool() itself) and everything from
// the first driver frame after them on (the cell runner that called the
// cell, and the builtins it used).
function trimStack(stack) {
  const lines = String(stack).split('\n');
  const out = [];
  let i = 0;
  while (i < lines.length && !frameLine.test(lines[i])) out.push(lines[i++]);
  while (i < lines.length && driverFrame.test(lines[i])) i++;
  for (; i < lines.length; i++) {
    if (/\[eval\]/.test(lines[i])) break;
    if (!driverFrame.test(lines[i])) out.push(lines[i]);
  }
  return out.join('\n');
}

// atCallSite gives an error raised for a tool() call the stack of the call
// in the cell, instead of the driver's message handler.
function atCallSite(err, site) {
  const frames = String(site && site.stack || '').split('\n').filter((l) => frameLine.test(l));
  err.stack = trimStack([`${err.name}: ${err.message}`, ...frames].join('\n'));
  return err;
}

const queue = [];
let running = false;

async function runNext() {
  running = true;
  while (queue.length) {
    const msg = queue.shift();
    await runCell(msg);
  }
  running = false;
}

// sync marks the end of the cell's own output: the marker on fd 1 (where
// child processes write) and a sync message, so agent-tools can put child
// output before the value.
function sync(msg) {
  if (msg.synced) return;
  msg.synced = true;
  try { fs.writeSync(1, msg.sync || ''); } catch (e) { /* fd 1 closed */ }
  send({ t: 'sync', id: msg.id });
}

async function runCell(msg) {
  cell = msg.id;
  let status = 'ok';
  const interrupted = new Promise((_, reject) => { cancelCell = reject; });
  interrupted.catch(() => {});
  try {
    const evaluation = post('Runtime.evaluate', {
      expression: msg.code,
      replMode: true,
      awaitPromise: true,
      objectGroup: 'cell',
    });
    let res;
    try {
      res = await Promise.race([evaluation, interrupted]);
      // A promise as the last value (tool(...) without await) is awaited.
      if (res && !res.exceptionDetails && res.result && res.result.subtype === 'promise') {
        res = await Promise.race([post('Runtime.awaitPromise', { promiseObjectId: res.result.objectId }), interrupted]);
      }
    } catch (e) {
      status = 'interrupted';
      send({ t: 'error', id: cell, ename: '', evalue: 'Interrupted: the cell was interrupted', traceback: 'Interrupted: the cell was interrupted\n' });
    }
    sync(msg);
    if (res && res.exceptionDetails) {
      status = 'error';
      const ex = res.exceptionDetails.exception;
      let text = ex ? (ex.description || (await inspectRemote(ex))) : res.exceptionDetails.text;
      if (ex && ex.type !== 'object') text = 'Uncaught ' + (await inspectRemote(ex));
      send({ t: 'error', id: cell, ename: '', evalue: text.split('\n')[0], traceback: trimStack(text) + '\n' });
    } else if (res && res.result && res.result.type !== 'undefined') {
      const text = await inspectRemote(res.result);
      send({ t: 'value', id: cell, kind: 'text', mime: 'text/plain', text });
    }
  } catch (e) {
    sync(msg);
    status = 'error';
    send({ t: 'error', id: cell, ename: '', evalue: 'Error: ' + String(e && e.message), traceback: String(e && e.stack) + '\n' });
  } finally {
    sync(msg);
    cancelCell = null;
    session.post('Runtime.releaseObjectGroup', { objectGroup: 'cell' }, () => {});
    pending.clear(); // calls of an interrupted cell never settle
    const id = cell;
    cell = 0;
    send({ t: 'done', id, status });
  }
}

send({ t: 'ready', version: process.versions.node, pid: process.pid });
})();
