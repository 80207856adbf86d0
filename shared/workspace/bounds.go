package workspace

// Bounds every request is held to before anything is read (docs/bounds.md).
const (
	// MaxIDLength is the longest id any entity has. A longer id, in a path or
	// a body, is treated as one that does not exist: never read, never a
	// server error (DynamoDB refuses key attributes over 1 KB).
	MaxIDLength = 256
	// MaxStringLength bounds any other string in a body unless a rule allows
	// less or more (tags 50, team names 100, e-mail 254).
	MaxStringLength = 1024
)

// PlausibleID reports whether id could name an entity: non-empty and at most
// MaxIDLength bytes. Callers treat an implausible id as not found without
// reading storage.
func PlausibleID(id string) bool { return id != "" && len(id) <= MaxIDLength }
