// Stands in for @oh-my-pi/pi-natives, the N-API addon (processes, file locks, PTY, clipboard, OAuth
// callback, mermaid rendering) that @oh-my-pi/pi-utils and @oh-my-pi/pi-ai import. Why a stub:
// ../README.md. Every name they import is here, and any use of one throws `PiNativesStubUsed`:
// the adapter treats that as a fault of the harness set-up (it exits), never as the translator's
// answer, so a tool-schema path that did reach the addon could not pass unnoticed.

export class PiNativesStubUsed extends Error {
  constructor(name) {
    super(`@oh-my-pi/pi-natives stub: ${name} was used; the schema-fidelity adapter does not load the native addon`);
    this.name = "PiNativesStubUsed";
  }
}

const unusable = (name) =>
  new Proxy(function stub() {}, {
    get(_target, key) {
      if (key === Symbol.toPrimitive || key === "then") return undefined;
      throw new PiNativesStubUsed(`${name}.${String(key)}`);
    },
    apply() {
      throw new PiNativesStubUsed(`${name}()`);
    },
    construct() {
      throw new PiNativesStubUsed(`new ${name}()`);
    },
  });

export const FileLock = unusable("FileLock");
export const NativeOAuthCallback = unusable("NativeOAuthCallback");
export const Process = unusable("Process");
export const ProcessStatus = unusable("ProcessStatus");
export const renderMermaidAscii = unusable("renderMermaidAscii");
