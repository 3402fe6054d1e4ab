// A tiny wheel named like the sidecar, whose `sidecar.cli:main` (the entry the plugin starts
// through the interpreter, and the `ora` script) answers `--version` and `models build` (writing
// a file where the real one writes the fp32 model; failing when ORA_STUB_FAIL_BUILD is set). It has no
// dependencies, so pip installs it offline in seconds; the real wheel's install (chromadb,
// onnxruntime: 1-3 minutes of pip) is proven by tests/test_packaging.py, and this file's test
// runs against it too when ORA_SETUP_WHEEL names one (see installer.e2e.test.ts).
import { execFileSync } from "child_process";

const WRITER = String.raw`
import base64, hashlib, sys, zipfile
out_dir, version = sys.argv[1], sys.argv[2]
dist = f"ora_vault_sidecar-{version}"
stub = f'''import os, pathlib, sys

def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        print("ora {version}")
        return 0
    if args == ["models", "build"]:
        if os.environ.get("ORA_STUB_FAIL_BUILD"):
            print("ora stub: model build failed", file=sys.stderr)
            return 1
        out = pathlib.Path(os.environ["ORA_MODELS_DIR"]) / "all-MiniLM-L6-v2-fp32" / "model.onnx"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(b"stub")
        print(f"fp32 embedder built: {{out}}")
        return 0
    print("ora stub: unsupported " + " ".join(args), file=sys.stderr)
    return 2
'''
files = {
    "sidecar/__init__.py": "",
    "sidecar/cli/__init__.py": stub,
    f"{dist}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: ora-vault-sidecar\nVersion: {version}\n",
    f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: ora-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    f"{dist}.dist-info/entry_points.txt": "[console_scripts]\nora = sidecar.cli:main\n",
}
record = []
path = f"{out_dir}/{dist}-py3-none-any.whl"
with zipfile.ZipFile(path, "w") as whl:
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
        whl.writestr(name, data)
    record.append(f"{dist}.dist-info/RECORD,,")
    whl.writestr(f"{dist}.dist-info/RECORD", "\n".join(record) + "\n")
print(path)
`;

/** Writes `ora_vault_sidecar-VERSION-py3-none-any.whl` into `dir` and returns its path. */
export function buildStubWheel(python: string, dir: string, version: string): string {
	return execFileSync(python, ["-c", WRITER, dir, version], { encoding: "utf8" }).trim();
}
