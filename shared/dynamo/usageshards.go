package dynamo

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file is the usage shards' entity: the counters of a workspace's
// month usage, by team (and one group for agents without a team), spread
// over usageShards partitions of their own (keys.go):
//
//	PK WS#<ws>#USAGE#<n>   SK USAGE#<YYYY-MM>#TEAM#<teamId>   (total)
//	                       SK USAGE#<YYYY-MM>#NOTEAM          (total)
//
// A usage transaction ADDs each group's sum to one shard n, picked at random
// per attempt (and another one when a cancellation names the shard item), so
// concurrent transactions of one workspace rarely meet on an item (real
// DynamoDB cancels those that do) and no partition takes more than its share
// of a workspace's writes. There is no workspace counter: the workspace's
// month total is the sum of every group's items, read with one Query per
// partition; a team's total is the sum of its usageShards items, read with
// one BatchGetItem.

// usageShards is how many partitions a workspace's month usage counters are
// spread over.
const usageShards = 32

// usageShardPK is the partition of usage shard n of workspace ws.
func usageShardPK(ws string, n int) string { return wsPK(ws) + "#USAGE#" + strconv.Itoa(n) }

// usageMonthPrefix is the sort-key prefix of every group's counter of month.
func usageMonthPrefix(month string) string { return prefixUsage + month + "#" }

// usageGroupSK is the sort key of team's counter of month, or of the group
// of agents without a team when team is "".
func usageGroupSK(month, team string) string {
	if team == "" {
		return usageMonthPrefix(month) + "NOTEAM"
	}
	return usageMonthPrefix(month) + "TEAM#" + team
}

// teamOfGroupSK returns the team a counter's sort key names ("" for the
// group without a team).
func teamOfGroupSK(sk, month string) string {
	return strings.TrimPrefix(strings.TrimPrefix(sk, usageMonthPrefix(month)), "TEAM#")
}

// counterItem is one shard of a group's month usage.
type counterItem struct {
	keys
	Total float64 `dynamodbav:"total"`
}

// pickShard picks the shard a usage transaction's attempt writes: at random,
// and never avoid (the shard a cancellation named; -1 for none).
func pickShard(avoid int) int {
	if avoid < 0 {
		return rand.IntN(usageShards)
	}
	return (avoid + 1 + rand.IntN(usageShards-1)) % usageShards
}

// usageShardWrite ADDs credits to group (ws, team)'s counter of month in
// shard n.
func usageShardWrite(ws, team, month string, n int, credits float64) write {
	return write{key: key(usageShardPK(ws, n), usageGroupSK(month, team)),
		upd: expression.Set(expression.Name(attrEntity), expression.Value(typeUsage)).
			Add(expression.Name(attrTotal), expression.Value(credits))}
}

// teamShardKeys are the keys (PK, SK) of team's usageShards counters of
// month.
func teamShardKeys(ws, team, month string) [][2]string {
	keys := make([][2]string, usageShards)
	for n := range keys {
		keys[n] = [2]string{usageShardPK(ws, n), usageGroupSK(month, team)}
	}
	return keys
}

// teamUsed sums the team's month usage counters (read with its
// teamShardKeys).
func (st *standings) teamUsed(ws, team string) (float64, error) {
	month := workspace.MonthKey(st.now)
	shards := make([]float64, usageShards)
	for n := range usageShards {
		c, _, err := decodeAt[counterItem](st.items, usageShardPK(ws, n), usageGroupSK(month, team))
		if err != nil {
			return 0, err
		}
		shards[n] = c.Total
	}
	return workspace.SumCredits(shards...), nil
}

// monthTotals returns workspace ws's usage in month (YYYY-MM): its total and
// each team's that has usage, by team id. One Query per shard partition,
// all at once (each reads a partition of its own), eventually consistent: a report may lag the
// last usage write by a moment, and no decision is taken on it.
func (s *Store) monthTotals(ctx context.Context, ws, month string) (total float64, teams map[string]float64, err error) {
	parts := make([][]counterItem, usageShards)
	errs := make([]error, usageShards)
	fanOutUpTo(ctx, usageShards, usageShards, func(ctx context.Context, n int) {
		in, err := s.keyQuery("", prefixed(usageShardPK(ws, n), usageMonthPrefix(month)))
		if err != nil {
			errs[n] = err
			return
		}
		in.ConsistentRead = aws.Bool(false)
		parts[n], errs[n] = queryAll(ctx, s, in, "usage shards", func(c counterItem) counterItem { return c })
	})
	byGroup := map[string][]float64{}
	for n := range usageShards {
		if errs[n] != nil {
			return 0, nil, errs[n]
		}
		for _, c := range parts[n] {
			byGroup[c.SK] = append(byGroup[c.SK], c.Total)
		}
	}
	teams = map[string]float64{}
	var all []float64
	for _, sk := range slices.Sorted(maps.Keys(byGroup)) {
		sum := workspace.SumCredits(byGroup[sk]...)
		all = append(all, sum)
		if sk != usageGroupSK(month, "") {
			teams[teamOfGroupSK(sk, month)] = sum
		}
	}
	return workspace.SumCredits(all...), teams, nil
}

// legacyCounter is a month counter shard as release 2.0.0 wrote it (keys.go,
// shardSK), its total as stored so that the fold moves the exact decimal.
type legacyCounter struct {
	keys
	Total attributevalue.Number `dynamodbav:"total"`
}

// FoldUsageShards moves workspace ws's month counters as release 2.0.0 kept
// them (per team WS#<ws>#TEAMDATA#<teamId>, per workspace WS#<ws>#USAGE, each
// USAGE#<month>#<shard> with shard 0..7) into the usage shards (the
// migration step usage-shards), every month, exactly: one transaction per
// old item deletes it, conditioned on its total as read, and ADDs that
// total to its group's counter in usage shard <shard>. The workspace
// counter held every agent's usage, its teams' too, so it goes to the
// no-team group and each team counter's fold also subtracts its total from
// the no-team group: the workspace's total is exact whatever teams exist,
// each team's is exact, and the no-team group's is the rest. An item that
// changed or went meanwhile is read again; a second run finds nothing to
// move. Round trips: the Query of the teams, one Query per old partition,
// one transaction per old item.
func (s *Store) FoldUsageShards(ctx context.Context, ws string) (workspace.MigrationCounts, error) {
	counts := workspace.MigrationCounts{Workspaces: 1}
	teams, err := s.Teams(ctx, ws)
	if err != nil {
		return counts, err
	}
	groups := map[string]string{wsPK(ws) + "#USAGE": ""} // old partition -> team
	for _, t := range teams {
		groups[teamDataPK(ws, t.ID)] = t.ID
	}
	for _, pk := range slices.Sorted(maps.Keys(groups)) {
		in, err := s.keyQuery("", prefixed(pk, prefixUsage))
		if err != nil {
			return counts, err
		}
		in.ConsistentRead = aws.Bool(true)
		old, err := queryAll(ctx, s, in, "release 2.0.0 usage shards", func(c legacyCounter) legacyCounter { return c })
		if err != nil {
			return counts, err
		}
		for _, c := range old {
			moved, err := s.foldCounter(ctx, ws, groups[pk], c)
			if err != nil {
				return counts, err
			}
			if moved {
				counts.Changed++
			}
		}
	}
	return counts, nil
}

// foldCounter moves one old counter c of team's group (ws's counter when
// team is "") into the usage shards; moved is false when it was gone.
func (s *Store) foldCounter(ctx context.Context, ws, team string, c legacyCounter) (moved bool, err error) {
	month, shard, ok := legacyShardOf(c.SK)
	if !ok {
		return false, nil // not a counter shard
	}
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		del, err := s.deleteIf(key(c.PK, c.SK), expression.Name(attrTotal).Equal(expression.Value(c.Total)))
		if err != nil {
			return false, err
		}
		ops := []write{{key: key(usageShardPK(ws, shard), usageGroupSK(month, team)),
			upd: expression.Set(expression.Name(attrEntity), expression.Value(typeUsage)).Add(expression.Name(attrTotal), expression.Value(c.Total))}}
		if team != "" {
			ops = append(ops, write{key: key(usageShardPK(ws, shard), usageGroupSK(month, "")),
				upd: expression.Set(expression.Name(attrEntity), expression.Value(typeUsage)).Add(expression.Name(attrTotal), expression.Value(negated(c.Total)))})
		}
		writes, err := s.decisionTx(ops, nil)
		if err != nil {
			return false, err
		}
		failed, err := s.transact(ctx, append([]types.TransactWriteItem{del}, writes...))
		if err != nil || len(failed) == 0 {
			return err == nil, err
		}
		if attempt >= maxReevaluations {
			return false, workspace.ErrBusy
		}
		// Written or folded meanwhile: read it again.
		fresh, found, err := getItem[legacyCounter](ctx, s, key(c.PK, c.SK), "release 2.0.0 usage shard")
		if err != nil || !found {
			return false, err
		}
		c = fresh
	}
}

// legacyShardOf parses a release 2.0.0 counter's sort key
// USAGE#<YYYY-MM>#<shard>.
func legacyShardOf(sk string) (month string, shard int, ok bool) {
	rest, ok := strings.CutPrefix(sk, prefixUsage)
	if !ok {
		return "", 0, false
	}
	month, n, ok := strings.Cut(rest, "#")
	if !ok {
		return "", 0, false
	}
	shard, err := strconv.Atoi(n)
	if err != nil || shard < 0 || shard >= usageShards {
		return "", 0, false
	}
	return month, shard, true
}
