#!/usr/bin/python3
"""No binary or module of the build loads shared libraries from the working directory.

The loader reads an empty RPATH/RUNPATH entry, and a relative one, against the working directory, so a library
planted there would run its constructors inside reluopt. Every ELF executable and shared object in the build
tree (the command line, the tests, the fuzz targets, the Python extension of `make python`) has only absolute or
$ORIGIN-relative entries; and reluopt run from a folder holding a planted copy of each library it needs does not
load one of them.

Usage: rpath_test.py BUILD_DIR RELUOPT_BINARY CXX_COMPILER
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

ELF_MAGIC = b"\x7fELF"
EXECUTABLE, SHARED_OBJECT = 2, 3  # ELF e_type values (relocatable objects have no RPATH)
# The C library and the loader itself are found before any search path, and a fake of either could not run.
NOT_PLANTED = re.compile(r"^(libc\.so\.|ld-linux)")


def elf_type(path):
    """The ELF e_type of `path`, or None for a file that is not ELF."""
    try:
        with open(path, "rb") as f:
            header = f.read(18)
    except OSError:
        return None
    if len(header) < 18 or not header.startswith(ELF_MAGIC):
        return None
    return int.from_bytes(header[16:18], "little" if header[5] == 1 else "big")


def dynamic_entries(path, tag):
    """The values of the dynamic section's `tag` entries (RPATH, RUNPATH, NEEDED) as readelf -d prints them."""
    out = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(" + tag + r"\)\s+[^[]*\[([^]]*)\]", out)


def unsafe_search_entries(path):
    """The RPATH/RUNPATH entries of `path` that the loader reads against the working directory."""
    bad = []
    for tag in ("RPATH", "RUNPATH"):
        for value in dynamic_entries(path, tag):
            for entry in value.split(":"):
                if not (entry.startswith("/") or entry.startswith("$ORIGIN") or entry.startswith("${ORIGIN}")):
                    bad.append(f"{tag} entry {entry!r} in [{value}]")
    return bad


def linked_elf_files(root):
    """Every ELF executable and shared object under `root` (symbolic links not followed)."""
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path) and elf_type(path) in (EXECUTABLE, SHARED_OBJECT):
                yield path


class RpathTest(unittest.TestCase):
    def test_every_search_path_entry_is_absolute(self):
        files = list(linked_elf_files(BUILD_DIR))
        self.assertIn(os.path.realpath(BINARY), [os.path.realpath(f) for f in files])
        bad = {path: entries for path in files if (entries := unsafe_search_entries(path))}
        self.assertEqual(bad, {}, f"binaries that search the working directory: {bad}")

    def test_a_library_planted_in_the_working_directory_is_not_loaded(self):
        needed = [name for name in dynamic_entries(BINARY, "NEEDED") if not NOT_PLANTED.match(name)]
        self.assertTrue(needed, "reluopt needs no shared library to plant")
        with tempfile.TemporaryDirectory() as folder:
            marker = os.path.join(folder, "planted_library_ran")
            source = os.path.join(folder, "planted.c")
            with open(source, "w") as f:
                f.write('#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n'
                        f'  FILE* f = fopen("{marker}", "w");\n  if (f) fclose(f);\n}}\n')
            for name in needed:
                subprocess.run([CXX, "-x", "c", "-shared", "-fPIC", f"-Wl,-soname,{name}", "-o",
                                os.path.join(folder, name), source], check=True, capture_output=True)
            done = subprocess.run([os.path.abspath(BINARY), "--version"], cwd=folder, capture_output=True, text=True,
                                  timeout=60)
            self.assertFalse(os.path.exists(marker), f"reluopt loaded a library planted in its working directory "
                                                      f"(one of {needed})")
            self.assertEqual(done.returncode, 0, done.stderr)


if __name__ == "__main__":
    BUILD_DIR, BINARY, CXX = sys.argv[1], sys.argv[2], sys.argv[3]
    unittest.main(argv=sys.argv[:1], verbosity=2)
