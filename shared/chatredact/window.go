package chatredact

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A rule's windows. A rule runs on windows around its keywords' hits
// (runRule): by default from as far before a hit as its longest match to
// as far after it. Most rules' matches begin with a keyword, or a few
// bytes before one (\b, a separator): for them, the window begins that
// far before the hit (leadBefore), which halves the bytes the rule scans.
// And gitleaks' rules of the shape KEYWORD[ \t\w.-]{0,20}[\s'"]{0,3}=...
// cannot match where no assignment follows the keyword within 23 bytes
// (assignKeywords, assignFollows): such hits are dropped before the rule
// runs, as are hits after which no match's prefix fits (follows).

// maxLeadSeqs and maxLeadLen bound the prefixes leadBefore enumerates.
const (
	maxLeadSeqs = 256
	maxLeadLen  = 48
)

// leadPos is one position of a match's prefix: the bytes it may hold (for
// a one-byte position) and its widest width in bytes.
type leadPos struct {
	set   [4]uint64 // bit c: byte c may stand here (width 1 only)
	width int       // 0 (empty), 1, or up to utf8.UTFMax
}

// leadSeq is a prefix every match of one branch begins with; open: more
// follows that is not enumerated.
type leadSeq struct {
	pos  []leadPos
	open bool
}

// leadBefore returns how many bytes at most a match of re begins before
// the first of keywords (lower case, matched in any case) in it, or -1
// when some match may hold none in its enumerated prefix.
func leadBefore(re *syntax.Regexp, keywords []string) int {
	seqs, ok := leadSeqs(re)
	if !ok {
		return -1
	}
	before := 0
	for _, sq := range seqs {
		off, found := 0, false
		for j := range sq.pos {
			if keywordAt(sq.pos[j:], keywords) {
				found = true
				break
			}
			off += sq.pos[j].width
		}
		if !found {
			return -1
		}
		before = max(before, off)
	}
	return before
}

// keywordAt reports whether positions ps begin with one of keywords: each
// keyword byte's position holds that byte alone, in either case.
func keywordAt(ps []leadPos, keywords []string) bool {
next:
	for _, k := range keywords {
		if len(k) > len(ps) {
			continue
		}
		for i := 0; i < len(k); i++ {
			p := ps[i]
			if p.width != 1 {
				continue next
			}
			lo, up := k[i], k[i]
			if 'a' <= lo && lo <= 'z' {
				up = lo - 'a' + 'A'
			}
			for c := 0; c < 256; c++ {
				if p.set[c>>6]&(1<<(c&63)) != 0 && byte(c) != lo && byte(c) != up {
					continue next
				}
			}
		}
		return true
	}
	return false
}

// leadSeqs enumerates the prefixes re's matches begin with.
func leadSeqs(re *syntax.Regexp) ([]leadSeq, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []leadSeq{{}}, true
	case syntax.OpLiteral:
		var sq leadSeq
		for _, r := range re.Rune {
			sq.pos = append(sq.pos, runePos(r, re.Flags&syntax.FoldCase != 0))
		}
		return []leadSeq{sq}, true
	case syntax.OpCharClass:
		// A small class is one branch per byte: gh[oprsu]_ holds ghp_.
		if n := classSize(re.Rune); n > 0 && n <= maxClassBranches {
			var out []leadSeq
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
					out = append(out, leadSeq{pos: []leadPos{runePos(c, false)}})
				}
			}
			return out, true
		}
		var p leadPos
		p.width = 1
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				// A rune past ASCII (a fold's ſ or K): any byte may lead it,
				// and the position is wider.
				p.width = utf8.UTFMax
				p.set[2], p.set[3] = ^uint64(0), ^uint64(0)
				hi = min(hi, utf8.RuneSelf-1)
			}
			for c := lo; c <= hi; c++ {
				p.set[c>>6] |= 1 << (c & 63)
			}
		}
		return []leadSeq{{pos: []leadPos{p}}}, true
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return []leadSeq{{pos: []leadPos{{set: [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, width: utf8.UTFMax}}}}, true
	case syntax.OpCapture:
		return leadSeqs(re.Sub[0])
	case syntax.OpAlternate:
		var out []leadSeq
		for _, sub := range re.Sub {
			s, ok := leadSeqs(sub)
			if !ok || len(out)+len(s) > maxLeadSeqs {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpQuest:
		s, ok := leadSeqs(re.Sub[0])
		if !ok || len(s)+1 > maxLeadSeqs {
			return nil, false
		}
		return append(s, leadSeq{}), true
	case syntax.OpConcat:
		out := []leadSeq{{}}
		for _, sub := range re.Sub {
			s, ok := leadSeqs(sub)
			if !ok {
				return nil, false
			}
			var next []leadSeq
			for _, a := range out {
				if a.open || len(a.pos) >= maxLeadLen {
					next = append(next, leadSeq{pos: a.pos, open: true})
					continue
				}
				for _, b := range s {
					pos := append(append([]leadPos(nil), a.pos...), b.pos...)
					next = append(next, leadSeq{pos: pos, open: b.open})
				}
			}
			if len(next) > maxLeadSeqs {
				return nil, false
			}
			out = next
		}
		return out, true
	case syntax.OpPlus, syntax.OpRepeat:
		if re.Op == syntax.OpRepeat && re.Min == 0 {
			return []leadSeq{{open: true}}, true
		}
		s, ok := leadSeqs(re.Sub[0])
		if !ok {
			return nil, false
		}
		for i := range s {
			s[i].open = true
		}
		return s, true
	}
	return []leadSeq{{open: true}}, true // OpStar and the like: nothing known
}

// maxClassBranches: the largest character class enumerated byte by byte.
const maxClassBranches = 8

// classSize is how many ASCII bytes the class ranges hold, or 0 when they
// hold more than maxClassBranches or a rune past ASCII.
func classSize(ranges []rune) int {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= utf8.RuneSelf {
			return 0
		}
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClassBranches {
			return 0
		}
	}
	return n
}

// runePos is the position of rune r (in either case with fold).
func runePos(r rune, fold bool) leadPos {
	if r >= utf8.RuneSelf {
		return leadPos{width: utf8.RuneLen(r)}
	}
	var p leadPos
	p.width = 1
	p.set[r>>6] |= 1 << (r & 63)
	if fold {
		// Folds outside ASCII (the Kelvin sign's k) are left out: the
		// keyword scan, in ASCII, finds no hit there either.
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf {
				p.set[f>>6] |= 1 << (f & 63)
			}
		}
	}
	return p
}

// genericAssign is the part of gitleaks' generated rules between their
// keyword and their value: the keyword's identifier, quotes, and an
// assignment (=, :, =>, ||, a comma...).
const genericAssign = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// assignKeywords returns the keywords after which r's matches need an
// assignment: r's regular expression has gitleaks' generic shape, (?i)HEAD
// then genericAssign, where HEAD, one group, matches nothing but those
// keywords ((?i)(?:adafruit), (?i)(?:message[_-]?bird), atlassian's
// (?-i:ATLASSIAN|[Aa]tlassian)|...). Other keywords (atlassian's ATATT3 of
// another branch) need none.
func assignKeywords(r *rule) []string {
	at := strings.Index(r.regex, genericAssign)
	if at < 0 || !strings.HasPrefix(r.regex, "(?i)(") || topLevelBar(r.regex[len("(?i)"):at]) {
		return nil
	}
	head, err := syntax.Parse(r.regex[:at], syntax.Perl)
	if err != nil {
		return nil
	}
	seqs, ok := leadSeqs(head)
	if !ok {
		return nil
	}
	var out []string
	for _, sq := range seqs {
		found := ""
		for _, k := range r.keywords {
			if !sq.open && len(sq.pos) == len(k) && keywordAt(sq.pos, []string{k}) {
				found = k
			}
		}
		if found == "" {
			return nil
		}
		if !slices.Contains(out, found) {
			out = append(out, found)
		}
	}
	return out
}

// topLevelBar reports whether re, a regular expression, has a '|' outside
// its groups (it is several branches, not one group).
func topLevelBar(re string) bool {
	depth, class := 0, false
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			return true
		}
	}
	return false
}

// assignFollows reports whether an assignment may follow the keyword that
// ends at s[end] within genericAssign's reach: after at most 23 bytes of
// identifier characters, blanks and quotes, one of = > : | ? , .
func assignFollows(s string, end int) bool {
	k := end
	for k < len(s) && k-end <= 23 {
		c := s[k]
		if isAlnum(c) || c == '_' || c == '.' || c == '-' || isSpace(c) || c == '\'' || c == '"' {
			k++
			continue
		}
		return strings.IndexByte("=>:|?,", c) >= 0
	}
	return false
}

// follow is what must come after one keyword where a match holds it in
// its enumerated prefix: the bytes of the positions after it (one-byte
// positions, up to the first wider one, whose first byte is known too).
type follow struct {
	keyword string
	after   []leadPos
}

// maxFollows bounds a rule's follows; past it, no hit is dropped.
const maxFollows = 512

// follows lists, for every keyword at every place of every prefix of re's
// matches, the positions after it; nil when there are too many. A hit of
// a keyword that has follows but whose text fits none of them is no match's
// first keyword (leadBefore) and is dropped (followsFit).
func follows(re *syntax.Regexp, keywords []string) []follow {
	seqs, ok := leadSeqs(re)
	if !ok {
		return nil
	}
	var out []follow
	for _, sq := range seqs {
		for j := range sq.pos {
			for _, k := range keywords {
				if !keywordAt(sq.pos[j:], []string{k}) {
					continue
				}
				after := sq.pos[j+len(k):]
				for i := range after {
					if after[i].width != 1 { // the last position whose start is known
						after = after[:i+1]
						break
					}
				}
				if out = append(out, follow{keyword: k, after: after}); len(out) > maxFollows {
					return nil
				}
			}
		}
	}
	return out
}

// followsFit reports whether the hit s[at:end] may be a match's first
// keyword: its keyword has no follows, or the text after it fits one.
func followsFit(fs []follow, s string, at, end int) bool {
	listed := false
	for i := range fs {
		f := &fs[i]
		if len(f.keyword) != end-at || !hasPrefixFold(s[at:], f.keyword) {
			continue
		}
		listed = true
		fits := true
		for j, p := range f.after {
			k := end + j
			if k >= len(s) {
				break // the text ends: a match cannot, but keep it simple
			}
			if c := s[k]; p.set[c>>6]&(1<<(c&63)) == 0 {
				fits = false
				break
			}
		}
		if fits {
			return true
		}
	}
	return !listed
}
