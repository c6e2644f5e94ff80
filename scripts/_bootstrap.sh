# Sourced by scripts/serve and scripts/test: make .venv and install the project into it,
# once, and again whenever pyproject.toml changes. Needs only python3 (3.9+) with venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${MLWIKI_VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
STAMP="$VENV/.mlwiki-installed"
if [ ! -x "$PY" ]; then
  echo "== creating virtual environment in $VENV" >&2
  python3 -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  echo "== installing the project and its test tools into $VENV" >&2
  "$PY" -m pip install --quiet --upgrade pip
  "$PY" -m pip install --quiet -e ".[test]"
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
export NO_MKDOCS_2_WARNING=1
