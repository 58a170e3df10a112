package check

import (
	"context"
	"io"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/service"
)

// reportedService is the learner's service as their own run reported it:
// seen from another machine it can be neither asked nor managed.
type reportedService struct{ status service.Status }

// notHere is what managing it says, in the language chosen by the time
// it is said.
type notHere struct{}

func (notHere) Error() string { return i18n.T("check.remote.not_here") }

var errNotHere error = notHere{}

func (r reportedService) Name() string                                   { return r.status.Manager }
func (r reportedService) UnitPath() string                               { return r.status.UnitPath }
func (r reportedService) Install(context.Context, service.Unit) error    { return errNotHere }
func (r reportedService) Enable(context.Context) error                   { return errNotHere }
func (r reportedService) Start(context.Context) error                    { return errNotHere }
func (r reportedService) Stop(context.Context) error                     { return errNotHere }
func (r reportedService) Restart(context.Context) error                  { return errNotHere }
func (r reportedService) Status(context.Context) (service.Status, error) { return r.status, nil }
func (r reportedService) Logs(context.Context, int, io.Writer) error     { return errNotHere }
func (r reportedService) Remove(context.Context) error                   { return errNotHere }
