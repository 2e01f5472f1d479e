# The timeline policy for Open Policy Agent: the same rules as the embedded PDP,
# reading the same policy file (loaded as data.timeline_policy).
#
# Query: POST /v1/data/incident/timeline/decisions with
#   {"input": {"subject": {...claims}, "action": "...", "resources": [{"visibility", "data_class"}, ...]}}
# Result: one decision per resource, in order: {"visible": bool, "redact": [field, ...]}.
package incident.timeline

import rego.v1

policy := data.timeline_policy

rank(level) := policy.visibility_rank[level]

clearance := object.get(input.subject, "clearance", policy.default_clearance)

data_access := object.get(input.subject, "data_access", [])

role_granted if policy.roles[input.action] in input.subject.roles

default visible(_) := false

visible(resource) if {
	role_granted
	rank(object.get(resource, "visibility", policy.default_visibility)) <= rank(clearance)
}

# Data classes the event carries that the caller was not granted.
missing(resource) := {class |
	some class in object.get(resource, "data_class", [])
	not class in data_access
}

redacts_actor(resource) if {
	some class in missing(resource)
	class in policy.redaction.actor_redacted_for
}

default redact(_) := []

redact(resource) := ["content", "data", "actor"] if {
	count(missing(resource)) > 0
	redacts_actor(resource)
}

redact(resource) := ["content", "data"] if {
	count(missing(resource)) > 0
	not redacts_actor(resource)
}

decisions := [{"visible": visible(resource), "redact": redact(resource)} | some resource in input.resources]
