package lambdaemu

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// BuildParallelism is how many builds Build runs at once: each go build
// already uses every core, and CI has two.
const BuildParallelism = 2

// Build builds the bootstrap of each function of template.yaml named in ids
// (logical ids) with the repository's own Makefile, as `sam build` does:
// `make -s build-<id> ARTIFACTS_DIR=<dir>/<id>`, for linux and this machine's
// architecture (LAMBDA_GOARCH), so that it runs here with the very flags
// that ship. root is the repository's root. It returns each binary's path by
// logical id, or the first failure with make's output.
func Build(ctx context.Context, root, dir string, ids []string) (map[string]string, error) {
	return BuildFor(ctx, root, dir, runtime.GOARCH, ids)
}

// BuildFor is Build for the architecture goarch (LAMBDA_GOARCH): the
// benchmarks measure the size of what ships (the template's arm64), which
// this machine may not run.
func BuildFor(ctx context.Context, root, dir, goarch string, ids []string) (map[string]string, error) {
	var (
		mu    sync.Mutex
		paths = make(map[string]string, len(ids))
		errs  = make([]error, len(ids))
		wg    sync.WaitGroup
		slots = make(chan struct{}, BuildParallelism)
	)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			out := filepath.Join(dir, id)
			cmd := exec.CommandContext(ctx, "make", "-s", "build-"+id, "ARTIFACTS_DIR="+out, "LAMBDA_GOARCH="+goarch)
			cmd.Dir = root
			// An enclosing make (make test) passes its flags and command-line
			// variables down through the environment: the build takes none.
			cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
				name, _, _ := strings.Cut(kv, "=")
				return name == "MAKEFLAGS" || name == "MFLAGS" || name == "MAKELEVEL" || name == "MAKEOVERRIDES"
			})
			if b, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("make build-%s: %w\n%s", id, err, b)
				return
			}
			mu.Lock()
			paths[id] = filepath.Join(out, "bootstrap")
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return paths, nil
}
