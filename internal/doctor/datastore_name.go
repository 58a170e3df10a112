package doctor

import (
	"context"
	"strings"

	"github.com/labhub/cnpa/internal/kube"
)

// Datastore is what the API server stores objects in, in one word
// (DatastoreEtcd, DatastoreKine or DatastoreUnknown), as datastoreCheck
// tells it: part of a cluster's identity in a submission.
func Datastore(ctx context.Context, k kube.Typed) string {
	word, _, _ := strings.Cut(datastoreCheck(ctx, k).Detail, " ")
	return strings.TrimRight(word, ":,;")
}
