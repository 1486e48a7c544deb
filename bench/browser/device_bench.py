"""Runs the device bench page (bench/browser/device.html, built by scripts/build-device-bench.mjs) in
headless Chromium on a machine that has a GPU and a browser but no Node: serves the built page with
the app's cross-origin isolation headers, starts Chromium on it, keeps what the page POSTs, and samples
memory while it runs (Chromium's resident set, all its processes, and the GPU memory nvidia-smi
reports for them), the most seen in each phase the page names.

First it probes each candidate set of GPU flags with ?probe=1 and keeps the first whose WebGPU adapter
is a hardware one; then it runs the bench with it.

    python3 bench/browser/device_bench.py --dist bench/.work/device-bench --chromium PATH --out DIR \
        [--query 'rows=4,64&reps=5,3'] [--timeout 420]

Standard library only (the machine it is for may have nothing else).
"""

import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# Candidate GPU flags, most specific first; the first whose adapter is not a software one is used.
FLAG_SETS = [
    ["--enable-features=Vulkan", "--use-angle=vulkan", "--ignore-gpu-blocklist", "--disable-vulkan-surface"],
    ["--enable-features=Vulkan,VulkanFromANGLE", "--use-angle=vulkan", "--use-vulkan=native",
     "--ignore-gpu-blocklist"],
    ["--ignore-gpu-blocklist", "--enable-gpu"],
    [],
]

# The flags the e2e tests use (e2e/lib.mjs CHROMIUM_ARGS), for a headless run that reaches no network.
BASE_FLAGS = ["--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"]

TYPES = {".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".css": "text/css"}


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.phase = "start"
        self.result = None
        self.partial = []
        self.done = threading.Event()
        self.peaks = {}  # phase -> {"rss_mib": x, "gpu_mib": y}

    def note(self, rss, gpu):
        with self.lock:
            p = self.peaks.setdefault(self.phase, {"rss_mib": 0.0, "gpu_mib": 0.0})
            p["rss_mib"] = max(p["rss_mib"], rss)
            p["gpu_mib"] = max(p["gpu_mib"], gpu)


def handler(dist, state):
    root = os.path.realpath(dist)

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def headers_out(self, ctype, length):
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(length))
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

        def do_GET(self):
            path = os.path.realpath(os.path.join(root, self.path.split("?")[0].lstrip("/")))
            # Never outside the built folder.
            if not (path == root or path.startswith(root + os.sep)) or not os.path.isfile(path):
                self.send_response(404)
                self.headers_out("text/plain", 0)
                return
            with open(path, "rb") as f:
                body = f.read()
            self.send_response(200)
            self.headers_out(TYPES.get(os.path.splitext(path)[1], "application/octet-stream"), len(body))
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode("utf-8", "replace")
            if self.path == "/__log":
                print(f"[page {time.strftime('%H:%M:%S')}] {body}", flush=True)
            elif self.path == "/__phase":
                with state.lock:
                    state.phase = body
            elif self.path == "/__partial":
                state.partial.append(json.loads(body))
            elif self.path == "/__result":
                state.result = json.loads(body)
                state.done.set()
            self.send_response(204)
            self.headers_out("text/plain", 0)

    return Handler


def tree_pids(pid):
    """The process and its descendants, from /proc."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def rss_mib(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def gpu_mib(pids):
    if not shutil.which("nvidia-smi"):
        return 0.0
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0.0
    used = 0.0
    for line in out.splitlines():
        parts = [x.strip() for x in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit() and int(parts[0]) in pids:
            used += float(parts[1]) if parts[1].replace(".", "").isdigit() else 0.0
    return used


def run_page(chromium, flags, url, state, timeout, lib_path):
    profile = tempfile.mkdtemp(prefix="rlvr-device-bench-")
    cmd = [chromium, *BASE_FLAGS, "--enable-logging=stderr", f"--user-data-dir={profile}", *flags, url]
    stderr = open(os.path.join(profile, "stderr.log"), "w")
    # The libraries a carried Chromium needs, for Chromium alone (not for this script or nvidia-smi).
    env = dict(os.environ, LD_LIBRARY_PATH=lib_path) if lib_path else None
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr, env=env)
    t0 = time.time()
    last_gpu = 0.0
    while not state.done.wait(0.25):
        pids = set(tree_pids(proc.pid))
        if time.time() - last_gpu > 1:
            gpu, last_gpu = gpu_mib(pids), time.time()
        else:
            gpu = 0.0
        state.note(rss_mib(pids), gpu)
        if proc.poll() is not None or time.time() - t0 > timeout:
            break
    proc.kill()
    proc.wait()
    stderr.close()
    with open(os.path.join(profile, "stderr.log")) as f:
        tail = f.read()[-4000:]
    shutil.rmtree(profile, ignore_errors=True)
    return state.result, tail, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--query", default="rows=4,64&reps=5,3")
    ap.add_argument("--timeout", type=float, default=420)
    ap.add_argument("--probe-timeout", type=float, default=45)
    ap.add_argument("--allow-software", action="store_true", help="run even on a software adapter (a check)")
    ap.add_argument("--lib-path", default="", help="LD_LIBRARY_PATH for Chromium (a carried copy's libraries)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    state = State()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(a.dist, state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/bench/browser/device.html"
    report = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "query": a.query, "probes": []}
    chosen = None
    for flags in FLAG_SETS:
        state.done.clear()
        state.result = None
        result, tail, secs = run_page(a.chromium, flags, base + "?probe=1", state, a.probe_timeout, a.lib_path)
        adapter = (result or {}).get("probe", {}).get("adapter")
        print(f"probe {flags}: {json.dumps(result)} ({secs:.1f} s)", flush=True)
        report["probes"].append({"flags": flags, "result": result, "stderr_tail": tail[-1500:]})
        if adapter and not adapter.get("software"):
            chosen = flags
            break
    if chosen is None and not a.allow_software:
        # A software adapter at the 135M shape would take hours: report the probes and stop.
        with open(os.path.join(a.out, "device-bench.json"), "w") as f:
            json.dump(report, f, indent=1)
        print("no hardware WebGPU adapter with any flag set (probes in device-bench.json); no bench", flush=True)
        return 2
    chosen = chosen if chosen is not None else FLAG_SETS[-1]
    report["flags"] = chosen
    state.done.clear()
    state.result = None
    state.peaks = {}
    state.partial = []
    result, tail, secs = run_page(a.chromium, chosen, f"{base}?{a.query}", state, a.timeout, a.lib_path)
    report.update({"result": result, "partial": state.partial, "peaks_by_phase": state.peaks, "seconds": secs,
                   "stderr_tail": tail})
    with open(os.path.join(a.out, "device-bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"bench finished in {secs:.1f} s; result {'kept' if result else 'MISSING'} in {a.out}", flush=True)
    return 0 if result and "error" not in result else 1


if __name__ == "__main__":
    sys.exit(main())
