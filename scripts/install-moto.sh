#!/usr/bin/env bash
# moto's server, for `rqbench ops` against STS, CloudWatch, EventBridge, DynamoDB and Pinpoint
# on this machine: a virtual environment of the project's own (.venv-moto, gitignored), pinned.
set -euo pipefail
cd "$(dirname "$0")/.."
MOTO_VERSION=5.2.5
if [ -x .venv-moto/bin/moto_server ] && .venv-moto/bin/python -c "import moto, sys; sys.exit(moto.__version__ != '$MOTO_VERSION')" 2>/dev/null; then
  echo "moto $MOTO_VERSION is installed in .venv-moto"
  exit 0
fi
python3 -m venv .venv-moto
.venv-moto/bin/pip install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"
echo "moto $MOTO_VERSION installed in .venv-moto"
