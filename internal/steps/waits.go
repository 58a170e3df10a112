package steps

// Why each wait of the lab takes the time it takes, as the live wait says
// it (ui.Wait): the learner watching a counter should know who is expected
// to act, and why it is not instant. Each is a message of the catalog,
// said in the chosen language when the wait starts (startWait).
const (
	whyCRDEstablished   = "steps.why.crd_established"
	whyQuotaStatus      = "steps.why.quota_status"
	whyProbeCreated     = "steps.why.probe_created"
	whyProbeGone        = "steps.why.probe_gone"
	whyQuotaRestored    = "steps.why.quota_restored"
	whyQuotaReverted    = "steps.why.quota_reverted"
	whyFinalizerAdded   = "steps.why.finalizer_added"
	whyBetaConverged    = "steps.why.beta_converged"
	whyBetaGone         = "steps.why.beta_gone"
	whyEarlierBetaGone  = "steps.why.earlier_beta_gone"
	whyGarbageCollected = "steps.why.garbage_collected"
	whyStopped          = "steps.why.stopped"
	whyCaughtUp         = "steps.why.caught_up"
)
