#!/usr/bin/python3
"""Copy the corpus workbooks out of the repositories' snapshots, as sources.json lists them.

    /usr/bin/python3 scripts/corpus/gather.py MIRROR_DIR CORPUS_DIR

MIRROR_DIR holds bare git snapshots as <owner>+<repo>/repo (each at the commit sources.json
records, or one holding it); each file is written to CORPUS_DIR/<owner>__<repo>/<path>. Then
scripts/corpus/expected.py CORPUS_DIR writes the expected values beside them.
"""

import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def main(mirrors, corpus):
    with open(os.path.join(here, "../../test/fixtures/corpus/sources.json"), encoding="utf-8") as fh:
        files = json.load(fh)["files"]
    for f in files:
        owner, name = f["repo"].split("/")
        git = os.path.join(mirrors, f"{owner}+{name}", "repo")
        out = os.path.join(corpus, f["file"])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        blob = subprocess.run(["git", "-C", git, "show", f"{f['commit']}:{f['path']}"], capture_output=True, check=True).stdout
        with open(out, "wb") as fh:
            fh.write(blob)
    print(f"{len(files)} files in {corpus}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
