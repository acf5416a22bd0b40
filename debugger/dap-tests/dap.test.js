// tpc-gdb's DAP server through the real client library (@vscode/debugadapter-testsupport), one session per
// feature, over stdio (--dap) and over TCP (--dap-port). Expected values are computed here from the inputs.
// Run by ctest: TPC_BIN=build/bin node --test debugger/dap-tests/
'use strict';
const { test, describe, before, after } = require('node:test');
const assert = require('node:assert');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const BIN = process.env.TPC_BIN || path.join(__dirname, '..', '..', 'build', 'bin');
const GDB = path.join(BIN, 'tpc-gdb');
const CLANG = path.join(BIN, 'tpc-clang');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tpc-dap-'));

const N = 7;
const IN = Array.from({ length: 64 }, (_, i) => i * 0.5);
const W = IN.map((x) => 2 * x + 3 * N);  // w at the store: 2 * in + 3n

const KERNELS = {
  axpb: `void main(tensor in, tensor out, int n)
{
    int5 c = 0;
    int k = n * 3;
    float64 v = v_f32_ld_tnsr_b(c, in);
    float64 w = v * 2.0f;
    w = w + (float)k;
    v_f32_st_tnsr(c, out, w);
}
`,
  loop: `#pragma tpc_printf (enable)
void main(tensor out, int n)
{
    int5 c = 0;
    int sum = 0;
    for (int i = 0; i < n; i++) {
        sum = sum * 2 + i;
    }
    printf("sum %d\\n", sum);
    float64 v = (float)sum;
    v_f32_st_tnsr(c, out, v);
}
`,
  fault: `__local__ float64 buf[4];
void main(tensor x, int n)
{
    int5 c = 0;
    float64 v = v_f32_ld_tnsr_b(c, x);
    buf[n] = v;
    v_f32_st_tnsr(c, x, buf[0] * 2.0f);
}
`,
};

function saveNpy(file, values, shape) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const head = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(head, 0);
  head[6] = 1; head[7] = 0; head.writeUInt16LE(header.length, 8);
  const body = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => body.writeFloatLE(v, i * 4));
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
}

function loadNpy(file) {
  const data = fs.readFileSync(file);
  const hlen = data.readUInt16LE(8);
  const out = [];
  for (let k = 10 + hlen; k + 4 <= data.length; k += 4) out.push(data.readFloatLE(k));
  return out;
}

const objects = {};
before(() => {
  for (const [name, src] of Object.entries(KERNELS)) {
    fs.writeFileSync(path.join(tmp, `${name}.c`), src);
    for (const opt of ['-O0', '-O2']) {
      const o = path.join(tmp, `${name}${opt}.o`);
      cp.execFileSync(CLANG, ['-g', opt, '-c', path.join(tmp, `${name}.c`), '-o', o]);
      objects[`${name}${opt}`] = o;
    }
  }
  saveNpy(path.join(tmp, 'in.npy'), IN, [1, 64]);
  saveNpy(path.join(tmp, 'x.npy'), Array(64).fill(1), [1, 64]);
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// A client over stdio, or over TCP to a server we start on a free port.
async function connect(transport) {
  if (transport === 'stdio') {
    const dc = new DebugClient(GDB, '--dap', 'tpc', { cwd: tmp });
    dc.defaultTimeout = 20000;
    await dc.start();
    return { dc, done: () => dc.stop() };
  }
  const server = cp.spawn(GDB, ['--dap-port', '0'], { cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    server.stderr.on('data', (d) => {
      text += d.toString();
      const m = text.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (m) resolve(Number(m[1]));
    });
    server.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
    setTimeout(() => reject(new Error('server did not listen')), 10000);
  });
  const dc = new DebugClient('unused', 'unused', 'tpc');
  dc.defaultTimeout = 20000;
  await dc.start(port);
  return { dc, done: async () => { await dc.stop(); server.kill(); } };
}

const AXPB_ARGS = ['-t', 'in.npy', '-t', 'out.npy=f32[1,64]', '-s', String(N), '--cores', '4', '--index-space', '1,4'];

async function launchAndStop(dc, program, args, setup, stopOnEntry = false) {
  await dc.initializeRequest();
  const stopped = dc.waitForEvent('stopped');
  const initialized = dc.waitForEvent('initialized');
  await dc.launch({ program, args, stopOnEntry, cwd: tmp });
  await initialized;
  if (setup) await setup();
  await dc.configurationDoneRequest();
  return (await stopped).body;
}

async function localsOf(dc, threadId) {
  const st = await dc.stackTraceRequest({ threadId });
  const scopes = (await dc.scopesRequest({ frameId: st.body.stackFrames[0].id })).body.scopes;
  const locals = scopes.find((s) => s.name === 'Locals');
  const vars = (await dc.variablesRequest({ variablesReference: locals.variablesReference })).body.variables;
  return { st, scopes, vars };
}

for (const transport of ['stdio', 'tcp']) {
  describe(`DAP over ${transport}`, () => {
    test('breakpoint with a condition over $core; threads are cores; scopes; vectors expand to paged lanes', async () => {
      const { dc, done } = await connect(transport);
      try {
        const src = path.join(tmp, 'axpb.c');
        let bpLine;
        const body = await launchAndStop(dc, objects['axpb-O0'], AXPB_ARGS, async () => {
          const r = await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: 8, condition: '$core == 1' }] });
          assert.ok(r.body.breakpoints[0].verified);
          bpLine = r.body.breakpoints[0].line;
        });
        assert.strictEqual(body.reason, 'breakpoint');
        assert.strictEqual(body.threadId, 2);  // core 1
        const threads = (await dc.threadsRequest()).body.threads;
        assert.deepStrictEqual(threads.map((t) => t.name), ['core 0', 'core 1', 'core 2', 'core 3']);
        const { st, scopes, vars } = await localsOf(dc, 2);
        assert.strictEqual(st.body.stackFrames[0].line, bpLine);
        assert.deepStrictEqual(scopes.map((s) => s.name), ['Locals', 'Registers', 'Tensors']);
        const k = vars.find((v) => v.name === 'k');
        assert.strictEqual(k.value, String(3 * N));
        const w = vars.find((v) => v.name === 'w');
        assert.strictEqual(w.indexedVariables, 64);
        const lanes = (await dc.variablesRequest({ variablesReference: w.variablesReference, filter: 'indexed', start: 4, count: 2 })).body.variables;
        assert.deepStrictEqual(lanes.map((l) => [l.name, Number(l.value)]), [['[4]', W[4]], ['[5]', W[5]]]);
        const tensors = scopes.find((s) => s.name === 'Tensors');
        const tv = (await dc.variablesRequest({ variablesReference: tensors.variablesReference })).body.variables;
        assert.deepStrictEqual(tv.map((t) => t.name), ['in', 'out']);
        const regs = scopes.find((s) => s.name === 'Registers');
        const groups = (await dc.variablesRequest({ variablesReference: regs.variablesReference })).body.variables;
        const s = groups.find((g) => g.name === 's');
        const sregs = (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables;
        assert.strictEqual(sregs.length, 36);
      } finally {
        await done();
      }
    });

    test('evaluate, setVariable on a lane, continue to the end (the output file shows the change)', async () => {
      const { dc, done } = await connect(transport);
      try {
        const src = path.join(tmp, 'axpb.c');
        const oneCore = ['-t', 'in.npy', '-t', 'out.npy=f32[1,64]', '-s', String(N), '--cores', '1'];
        await launchAndStop(dc, objects['axpb-O2'], oneCore, () => dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: 8 }] }));
        const e = await dc.evaluateRequest({ expression: 'w[3]', context: 'watch' });
        assert.strictEqual(Number(e.body.result), W[3]);
        const t = await dc.evaluateRequest({ expression: 'in[6,0]', context: 'hover' });
        assert.strictEqual(Number(t.body.result), IN[6]);
        const { vars } = await localsOf(dc, 1);
        const w = vars.find((v) => v.name === 'w');
        const set = await dc.setVariableRequest({ variablesReference: w.variablesReference, name: '[2]', value: '100' });
        assert.strictEqual(Number(set.body.value), 100);
        const repl = await dc.evaluateRequest({ expression: 'info cores', context: 'repl' });
        assert.match(repl.body.result, /Index-space slice/);
        await dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [] });
        const exited = dc.waitForEvent('exited');
        const terminated = dc.waitForEvent('terminated');
        await dc.continueRequest({ threadId: 1 });
        assert.strictEqual((await exited).body.exitCode, 0);
        await terminated;
        const out = loadNpy(path.join(tmp, 'out.npy'));
        assert.strictEqual(out[2], 100);
        assert.strictEqual(out[3], W[3]);
      } finally {
        await done();
      }
    });

    test('stepping: next by line, stepIn by instruction, stepBack, reverseContinue', async () => {
      const { dc, done } = await connect(transport);
      try {
        const src = path.join(tmp, 'loop.c');
        const args = ['-t', 'out.npy=f32[1,64]', '-s', '5', '--cores', '1'];
        await launchAndStop(dc, objects['loop-O0'], args, () => dc.setBreakpointsRequest({ source: { path: src }, breakpoints: [{ line: 7 }] }));
        const pc = async () => (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
        const i0 = await dc.evaluateRequest({ expression: 'i', context: 'watch' });
        assert.strictEqual(i0.body.result, '0');
        let stopped = dc.waitForEvent('stopped');
        await dc.nextRequest({ threadId: 1 });
        assert.strictEqual((await stopped).body.reason, 'step');
        assert.notStrictEqual((await pc()).line, 7);
        const before = parseInt((await pc()).instructionPointerReference, 16);
        stopped = dc.waitForEvent('stopped');
        await dc.stepInRequest({ threadId: 1, granularity: 'instruction' });
        await stopped;
        assert.strictEqual(parseInt((await pc()).instructionPointerReference, 16), before + 64);
        stopped = dc.waitForEvent('stopped');
        await dc.stepBackRequest({ threadId: 1, granularity: 'instruction' });
        await stopped;
        assert.strictEqual(parseInt((await pc()).instructionPointerReference, 16), before);
        // Forward to the third hit (i == 2), then back to the previous hit (i == 1).
        for (let k = 0; k < 2; ++k) {
          stopped = dc.waitForEvent('stopped');
          await dc.continueRequest({ threadId: 1 });
          assert.strictEqual((await stopped).body.reason, 'breakpoint');
        }
        assert.strictEqual((await dc.evaluateRequest({ expression: 'i', context: 'watch' })).body.result, '2');
        stopped = dc.waitForEvent('stopped');
        await dc.reverseContinueRequest({ threadId: 1 });
        assert.strictEqual((await stopped).body.reason, 'breakpoint');
        assert.strictEqual((await dc.evaluateRequest({ expression: 'i', context: 'watch' })).body.result, '1');
      } finally {
        await done();
      }
    });

    test('instruction and data breakpoints; printf as output events', async () => {
      const { dc, done } = await connect(transport);
      try {
        const args = ['-t', 'out.npy=f32[1,64]', '-s', '5', '--cores', '1'];
        const body = await launchAndStop(dc, objects['loop-O2'], args, async () => {
          const r = await dc.send('setInstructionBreakpoints', { breakpoints: [{ instructionReference: '0x0' }] });
          assert.ok(r.body.breakpoints[0].verified);
        });
        assert.strictEqual(body.reason, 'breakpoint');
        const info = await dc.send('dataBreakpointInfo', { name: 'out[3,0]' });
        assert.strictEqual(info.body.dataId, 'out[3,0]');
        const set = await dc.send('setDataBreakpoints', { breakpoints: [{ dataId: info.body.dataId }] });
        assert.ok(set.body.breakpoints[0].verified);
        await dc.send('setInstructionBreakpoints', { breakpoints: [] });
        const output = dc.waitForEvent('output');
        const stopped = dc.waitForEvent('stopped');
        await dc.continueRequest({ threadId: 1 });
        assert.strictEqual((await output).body.output, 'sum 26\n');
        const s = (await stopped).body;
        assert.strictEqual(s.reason, 'data breakpoint');
        assert.match(s.description, /out\[3,0\]: 0 -> 26/);
      } finally {
        await done();
      }
    });

    test('a fault stops with reason exception at its source line; disassemble and readMemory', async () => {
      const { dc, done } = await connect(transport);
      try {
        const body = await launchAndStop(dc, objects['fault-O0'], ['-t', 'x.npy', '-s', '1000', '--cores', '1']);
        assert.strictEqual(body.reason, 'exception');
        assert.match(body.text, /out of range/);
        const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
        assert.strictEqual(frame.line, 6);
        const { vars } = await localsOf(dc, 1);
        const buf = vars.find((v) => v.name === 'buf');
        assert.strictEqual(buf.type, 'float64[4]');
        assert.strictEqual(buf.indexedVariables, 4);
        const elems = (await dc.variablesRequest({ variablesReference: buf.variablesReference })).body.variables;
        assert.deepStrictEqual(elems.map((e) => [e.name, e.indexedVariables]), [['[0]', 64], ['[1]', 64], ['[2]', 64], ['[3]', 64]]);
        const ex = await dc.send('exceptionInfo', { threadId: 1 });
        assert.match(ex.body.description, /vector local memory/);
        const dis = await dc.send('disassemble', { memoryReference: frame.instructionPointerReference, instructionCount: 2 });
        assert.strictEqual(dis.body.instructions.length, 2);
        assert.match(dis.body.instructions[0].instruction, / ; /);
        const x = await dc.evaluateRequest({ expression: 'x', context: 'watch' });
        const base = x.body.result.match(/at (0x[0-9a-f]+)/)[1];
        const mem = await dc.send('readMemory', { memoryReference: base, count: 8 });
        const bytes = Buffer.from(mem.body.data, 'base64');
        assert.strictEqual(bytes.readFloatLE(0), 1);
        assert.strictEqual(bytes.readFloatLE(4), 1);
      } finally {
        await done();
      }
    });
  });
}

test('stopOnEntry, pause while running, terminate', async () => {
  const { dc, done } = await connect('stdio');
  try {
    const args = ['-t', 'out.npy=f32[1,64]', '-s', '50000000', '--cores', '1'];
    const body = await launchAndStop(dc, objects['loop-O0'], args, null, true);
    assert.strictEqual(body.reason, 'entry');
    const stopped = dc.waitForEvent('stopped');
    await dc.continueRequest({ threadId: 1 });
    await new Promise((r) => setTimeout(r, 300));
    await dc.pauseRequest({ threadId: 1 });
    assert.strictEqual((await stopped).body.reason, 'pause');
    const terminated = dc.waitForEvent('terminated');
    await dc.send('terminate', {});
    await terminated;
  } finally {
    await done();
  }
});

test('bad requests get error responses', async () => {
  const { dc, done } = await connect('stdio');
  try {
    await dc.initializeRequest();
    await assert.rejects(dc.send('frobnicate', {}), /unknown command 'frobnicate'/);
    await assert.rejects(dc.send('stackTrace', { threadId: 1 }), /before a successful 'launch'/);
    await assert.rejects(dc.send('launch', { program: path.join(tmp, 'missing.o'), args: [] }), /missing\.o/);
    await assert.rejects(dc.send('launch', { program: objects['axpb-O0'], args: ['-t', 'in.npy'] }), /takes 2 tensor/);
  } finally {
    await done();
  }
});

test('broken framing on stdio: a clean exit with a message, never a hang', async () => {
  for (const bad of ['Content-Length: abc\r\n\r\n{}', 'Content-Length: 99999999999\r\n\r\n', 'X'.repeat(10000)]) {
    const r = cp.spawnSync(GDB, ['--dap'], { input: bad, timeout: 10000 });
    assert.strictEqual(r.error, undefined);
    assert.strictEqual(r.status, 1);
    assert.match(r.stderr.toString(), /DAP input: .*closing/);
  }
  // Invalid JSON with a correct length gets an error response, and the server goes on to the next message.
  const body = (s) => `Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`;
  const r = cp.spawnSync(GDB, ['--dap'], {
    input: body('{"seq": 1, "type": "request", "command": ') + body('{"seq": 2, "type": "request", "command": "initialize"}'),
    timeout: 10000,
  });
  const out = r.stdout.toString();
  assert.match(out, /"success":false/);
  assert.match(out, /"command":"initialize".*"success":true|"success":true.*"command":"initialize"/);
  assert.strictEqual(r.status, 0);
});
