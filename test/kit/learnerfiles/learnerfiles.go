// Package learnerfiles holds files a learner writes by hand, as the lab
// text asks, for the tests that use them as the learner's: one copy for
// the unit tests of package lab and the real-cluster tests of
// test/learners.
package learnerfiles

// CRD is a learner's crd.yaml as the lab text's step 1 says, with extras
// the lab does not forbid: a short name, printer columns, descriptions.
const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: teamspaces.platform.labhub.io
spec:
  group: platform.labhub.io
  scope: Cluster
  names:
    kind: TeamSpace
    plural: teamspaces
    singular: teamspace
    shortNames: [ts]
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {name: Pods, type: integer, jsonPath: .spec.pods}
    - {name: Observed, type: integer, jsonPath: .status.observedGeneration}
    schema:
      openAPIV3Schema:
        type: object
        description: a team's namespace with a quota
        properties:
          spec:
            type: object
            required: [pods]
            properties:
              pods: {type: integer, minimum: 1, maximum: 50, description: pods the team may run}
              cpu: {type: string, default: "1"}
          status:
            type: object
            properties:
              observedGeneration: {type: integer}
              namespace: {type: string}
`
