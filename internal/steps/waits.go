package steps

// Why each wait of the lab takes the time it takes, as the live wait says
// it (ui.Wait): the learner watching a counter should know who is expected
// to act, and why it is not instant.
const (
	whyCRDEstablished   = "the API server checks the schema and starts serving /apis/platform.labhub.io/v1alpha1/teamspaces first"
	whyQuotaStatus      = "Kubernetes' ResourceQuota controller writes status.hard, which moves the quota's resourceVersion: compare after it"
	whyProbeCreated     = "nobody acts on the probe but the running controller: its watch, or the loop's next pass (every 3 s)"
	whyProbeGone        = "cnpa deletes the probe's namespace itself rather than wait for the garbage collector; the namespace controller empties it (the quota) first"
	whyQuotaRestored    = "nobody tells the controller: its next pass (a watch event, or the loop every 3 s) finds desired ≠ actual"
	whyQuotaReverted    = "the controller's next pass compares the quota with alpha's spec.pods and writes it back"
	whyFinalizerAdded   = "the controller adds it on its next pass over alpha (the loop passes every 3 s)"
	whyBetaConverged    = "the controller creates team-beta and adds the finalizer on its next pass"
	whyBetaGone         = "the controller writes archive/beta.json, then removes its finalizer; the API server deletes beta when no finalizer is left"
	whyEarlierBetaGone  = "the controller releases a deleted beta once it has archived it, and the garbage collector then deletes team-beta"
	whyGarbageCollected = "the garbage collector, not the controller, deletes team-beta when it sees its owner gone: up to a minute"
	whyStopped          = "nobody acts on alpha's new spec meanwhile: generation moves, observedGeneration and the quota stay"
	whyCaughtUp         = "started again, the controller's first pass reads the current state: it need not know what changed"
)
