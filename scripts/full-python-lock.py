"""Write the Full Python lock (electron/scripts/native/full-python-lock.json) from a folder of wheels.

Fetch the wheels first with pip for CPython 3.11 on manylinux x86_64, e.g.:
  python3.11 -m pip download --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --platform manylinux2014_x86_64 --python-version 3.11 --implementation cp --abi cp311 \
    -d wheels numpy pandas matplotlib scipy openpyxl python-docx pypdf Pillow
then: python3 scripts/full-python-lock.py wheels numpy pandas matplotlib scipy openpyxl python-docx pypdf Pillow

Each wheel's dependencies are read from its METADATA (markers evaluated for CPython 3.11 on Linux
x86_64, extras left out), so the app can install any subset of the top-level packages with exactly
what it needs.
"""
import hashlib, json, os, re, sys, zipfile
from pip._vendor.packaging.requirements import Requirement

ENV = {"python_version": "3.11", "python_full_version": "3.11.7", "sys_platform": "linux",
       "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
       "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}

def norm(n): return re.sub(r"[-_.]+", "-", n).lower()

def main(folder, tops):
    wheels = []
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".whl"): continue
        p = os.path.join(folder, fn)
        data = open(p, "rb").read()
        with zipfile.ZipFile(p) as z:
            meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
            text = z.read(meta).decode("utf-8")
        name = version = None; requires = []
        for line in text.split("\n"):
            if line == "": break
            if line.startswith("Name: "): name = line[6:].strip()
            elif line.startswith("Version: "): version = line[9:].strip()
            elif line.startswith("Requires-Dist: "):
                r = Requirement(line[15:].strip())
                if r.marker is None or r.marker.evaluate(ENV): requires.append(norm(r.name))
        wheels.append({"name": norm(name), "version": version, "filename": fn,
                       "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                       "requires": sorted(set(requires))})
    have = {w["name"] for w in wheels}
    for w in wheels:
        missing = [r for r in w["requires"] if r not in have]
        if missing: sys.exit(f"{w['filename']} needs {missing}, which are not in {folder}")
    out = {"version": 1, "python": "cp311", "platform": "manylinux_x86_64",
           "packages": [norm(t) for t in tops], "wheels": wheels}
    dest = os.path.join(os.path.dirname(__file__), "..", "electron", "scripts", "native", "full-python-lock.json")
    with open(dest, "w") as f: json.dump(out, f, indent=2); f.write("\n")
    print(f"{len(wheels)} wheels, {sum(w['size'] for w in wheels)} bytes -> {dest}")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
