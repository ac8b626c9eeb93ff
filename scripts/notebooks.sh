#!/usr/bin/env bash
# `npm run notebooks`: registers the TypeScript kernel (tslab) with Jupyter, emits the results API's
# type declarations for the kernel, makes the demo runs the notebooks read (when missing), then
# executes every notebook headless. Exits non-zero on any cell error.
#
# Environment:
#   NOTEBOOKS_OUT     where executed copies go (default notebooks/executed, git-ignored)
#   HISRAG_FIGURES    where figures are exported (default notebooks/figures, git-ignored)
#   JUPYTER_PYTHON    the Python that has jupyter_client (default /usr/bin/python3, Debian's)
#   NOTEBOOKS         notebooks to run (default: all notebooks/*.ipynb)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$SECONDS
step() { echo "== $* ($((SECONDS - started)) s)"; }

python=${JUPYTER_PYTHON:-/usr/bin/python3}
if ! command -v jupyter-nbconvert >/dev/null 2>&1 || ! "$python" -c 'import jupyter_client, nbconvert' 2>/dev/null; then
  echo "notebooks: Jupyter is missing; install Debian's packages:" >&2
  echo "  apt-get install jupyter-nbconvert jupyter-client python3-ipykernel jupyter-core" >&2
  exit 1
fi

step "kernel: tslab (TypeScript) for $python, per-user kernelspec"
# --user: `jupyter notebook notebooks/` then finds the kernel with no further setup.
node_modules/.bin/tslab install --python="$python" --binary="$root/node_modules/.bin/tslab" --user >/dev/null

step "types for the kernel (notebooks/.hisrag-types)"
node_modules/.bin/tsc -p notebooks/tsconfig.types.json

step "the compiled library the notebooks import (dist/, npm run build)"
node scripts/build.mjs >/dev/null

# A run whose manifest says complete is used as it is; any other existing run directory was
# interrupted and is resumed (an interrupted run also writes a partial summary.json).
ensure_run() {
  local id=$1 config=$2
  shift 2
  local dir="experiments/runs/$id"
  if grep -q '"complete": true' "$dir/manifest.json" 2>/dev/null; then
    echo "   $dir: present"
  elif [ -d "$dir" ]; then
    step "resuming $dir"
    node bin/hisrag.mjs run --resume "$dir" --quiet
  else
    step "hisrag run $config --run-id $id $*"
    node bin/hisrag.mjs run "$config" --run-id "$id" --quiet "$@"
  fi
}

step "demo runs"
ensure_run notebook-demo experiments/demo.yaml
ensure_run notebook-noise experiments/demo-noise.yaml
ensure_run notebook-rerank experiments/demo-rerank.yaml
# Answers diagnosed (help/hurt, claim metrics): section 6 of retrieval-depth.ipynb.
ensure_run notebook-diagnostics experiments/demo-diagnostics.yaml
# The same answers judged by a stricter lexical judge: the second judge of judge-agreement.ipynb.
ensure_run notebook-judge-strict experiments/demo.yaml --set judge.threshold=0.75

export HISRAG_RUN=${HISRAG_RUN:-experiments/runs/notebook-demo}
export HISRAG_RECALL_RUN=${HISRAG_RECALL_RUN:-experiments/runs/notebook-noise}
export HISRAG_RERANK_RUN=${HISRAG_RERANK_RUN:-experiments/runs/notebook-rerank}
export HISRAG_NOISE_RUN=${HISRAG_NOISE_RUN:-experiments/runs/notebook-noise}
export HISRAG_DIAGNOSTICS_RUN=${HISRAG_DIAGNOSTICS_RUN:-experiments/runs/notebook-diagnostics}
export HISRAG_JUDGE_RUN_A=${HISRAG_JUDGE_RUN_A:-experiments/runs/notebook-demo}
export HISRAG_JUDGE_RUN_B=${HISRAG_JUDGE_RUN_B:-experiments/runs/notebook-judge-strict}
export HISRAG_FIGURES=${HISRAG_FIGURES:-notebooks/figures}
out=${NOTEBOOKS_OUT:-notebooks/executed}
mkdir -p "$out"

failed=()
for notebook in ${NOTEBOOKS:-notebooks/*.ipynb}; do
  step "executing $notebook"
  if ! jupyter-nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=tslab \
    --output-dir "$out" "$notebook" 2> >(grep -v '^\[NbConvertApp\]' >&2); then
    failed+=("$notebook")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "notebooks: failed: ${failed[*]} (the cell error is printed above)" >&2
  exit 1
fi
step "done: executed notebooks in $out, figures in $HISRAG_FIGURES"
