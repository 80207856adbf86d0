package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The usage export reads the agents' month usage items, the counters usage
// already keeps, through two month listings (keys.go): GSI1 lists the agents
// of a workspace that spent in a month, GSI2 those of one team. Each listing
// names only agents that spent, so an export reads O(months x agents that
// spent) items, never every agent of the workspace, and a team-scoped key
// reads its team's agents only.
//
// An agent's entry in a month's listings is a listing item of its own
// (WS#<ws>#AGENTDATA#<agentId> / LISTING#<YYYY-MM>), written once, after the
// agent's first usage of the month committed (listUsageMonth), never in a
// usage transaction: a usage write then touches no index, and the index
// takes one write per agent and month. The usage item records that it is
// listed (listed = true). Usage items written before release 3.0.0 carry the
// listing keys themselves (and the index projects their day figures); the
// export reads both kinds, and the day figures of a listing item's agent
// from its usage item (one BatchGetItem per page).

// Keys and attributes of the month listings.
const (
	prefixListing    = "LISTING#"
	typeUsageListing = "usageListing"
	attrListed       = "listed"
)

func listingSK(month string) string { return prefixListing + month }

// usageListed reports whether agent r's month is in the month listings, as
// st read it (with its usage item and its listing item, settleReads): its
// listing item exists, or its usage item carries the listing keys itself
// (written before release 3.0.0) or the mark of an earlier listing; no usage
// item, nothing to list.
func usageListed(st *standings, r agentRef, month string) bool {
	raw := st.items[[2]string{agentDataPK(r.ws, r.agent), usageSK(month)}]
	if raw == nil {
		return true
	}
	if _, ok := st.items[[2]string{agentDataPK(r.ws, r.agent), listingSK(month)}]; ok {
		return true
	}
	_, listed := raw[attrListed]
	_, indexed := raw[attrGSI1PK]
	return listed || indexed
}

// listUsageMonth puts agent r in month's listings: its listing item, put
// once (attribute_not_exists; finding it there already is success). It is a
// single write to an item no transaction holds, never to the usage item,
// which every usage transaction of the agent holds: the listing neither
// waits for nor cancels them. A failure leaves it unlisted and the agent's
// events go back to the queue; their redelivery lists it.
func (s *Store) listUsageMonth(ctx context.Context, r agentRef, month string) error {
	it := map[string]any{attrPK: agentDataPK(r.ws, r.agent), attrSK: listingSK(month), attrEntity: typeUsageListing}
	for _, a := range usageIndexAttrs(r, month) {
		it[a[0]] = a[1]
	}
	raw, err := marshal(it)
	if err != nil {
		return err
	}
	e, err := build(expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: raw,
		ConditionExpression: e.Condition(), ExpressionAttributeNames: e.Names()})
	var there *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &there) {
		return fmt.Errorf("list usage month: %w", err)
	}
	return nil
}

// usageIndexAttrs are the attributes that put an agent's month usage item in
// the month listings: its agent and team, and the index keys.
func usageIndexAttrs(r agentRef, month string) [][2]string {
	attrs := [][2]string{
		{attrAgentID, r.agent},
		{attrGSI1PK, usageMonthGSI1PK(r.ws, month)},
		{attrGSI1SK, agentSK(r.agent)},
	}
	if r.team != "" {
		attrs = append(attrs, [2]string{attrTeamID, r.team},
			[2]string{attrGSI2PK, teamUsageMonthGSI2PK(r.ws, month, r.team)},
			[2]string{attrGSI2SK, agentSK(r.agent)})
	}
	return attrs
}

// indexUsage adds to upd, an update of r's month usage item, the SETs of
// usageIndexAttrs.
func indexUsage(upd expression.UpdateBuilder, r agentRef, month string) expression.UpdateBuilder {
	for _, a := range usageIndexAttrs(r, month) {
		upd = upd.Set(expression.Name(a[0]), expression.Value(a[1]))
	}
	return upd
}

// usageListing decodes one entry of a month listing: a listing item, or a
// usage item written before release 3.0.0 (with its days).
type usageListing struct {
	workspace.AgentMonthSpend
	listingItem bool
}

// UnmarshalDynamoDBAttributeValue reads the listing's projection: its agent,
// its team and, of a usage item, its days' spend.
func (u *usageListing) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return fmt.Errorf("usage listing: %T is not an item", av)
	}
	mu, err := loadMonthUsage(m.Value)
	if err != nil {
		return err
	}
	str := func(name string) string {
		s, _ := m.Value[name].(*types.AttributeValueMemberS)
		if s == nil {
			return ""
		}
		return s.Value
	}
	u.AgentMonthSpend = workspace.AgentMonthSpend{AgentID: str(attrAgentID), TeamID: str(attrTeamID), Spent: mu.Spent}
	u.listingItem = str(attrEntity) == typeUsageListing
	return nil
}

// UsageMonthPage lists the agents of ws that spent in month (YYYY-MM), only
// team's when team is not empty, in agent id order, after the agent id after
// ("" from the first), up to limit of them; more tells whether others
// follow. Each agent comes with its spend per day of the month and the team
// it spent in. One Query per 1 MB page of the listing (about 1,300 agents),
// then one BatchGetItem per 100 agents listed by a listing item (their usage
// items); the listing is an index, so it may lag a usage write by a moment.
func (s *Store) UsageMonthPage(ctx context.Context, ws, team, month, after string, limit int) (
	usage []workspace.AgentMonthSpend, more bool, err error) {
	pk, skAttr, pkAttr, index := usageMonthGSI1PK(ws, month), attrGSI1SK, attrGSI1PK, IndexGSI1
	if team != "" {
		pk, skAttr, pkAttr, index = teamUsageMonthGSI2PK(ws, month, team), attrGSI2SK, attrGSI2PK, IndexGSI2
	}
	proj := expression.NamesList(expression.Name(attrAgentID), expression.Name(attrTeamID), expression.Name(attrEntity))
	for d := 1; d <= 31; d++ {
		proj = proj.AddNames(expression.Name(spentAttr(d)))
	}
	// Every entry's sort key is AGENT#<id>, so "after AGENT#" is all of them.
	e, err := build(expression.NewBuilder().WithProjection(proj).WithKeyCondition(
		expression.Key(pkAttr).Equal(expression.Value(pk)).And(expression.Key(skAttr).GreaterThan(expression.Value(agentSK(after))))))
	if err != nil {
		return nil, false, err
	}
	in := &dynamodb.QueryInput{
		IndexName: aws.String(index), KeyConditionExpression: e.KeyCondition(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}
	listed, more, err := queryPage(ctx, s, in, nil, limit, "usage listing", func(u usageListing) usageListing { return u })
	if err != nil {
		return nil, false, err
	}
	var keys []item
	for _, u := range listed {
		if u.listingItem {
			keys = append(keys, key(agentDataPK(ws, u.AgentID), usageSK(month)))
		}
	}
	found := map[[2]string]item{}
	if len(keys) > 0 {
		if found, err = s.batchGet(ctx, keys); err != nil {
			return nil, false, err
		}
	}
	// An agent's month is listed once, by its listing item or (before
	// release 3.0.0) its usage item; a backfill racing a first usage may
	// leave both, next to each other in the index's order: one is kept.
	listed = slices.CompactFunc(listed, func(a, b usageListing) bool { return a.AgentID == b.AgentID })
	usage = make([]workspace.AgentMonthSpend, len(listed))
	for i, u := range listed {
		if u.listingItem {
			mu, err := loadMonthUsage(found[[2]string{agentDataPK(ws, u.AgentID), usageSK(month)}])
			if err != nil {
				return nil, false, err
			}
			u.Spent = mu.Spent
		}
		usage[i] = u.AgentMonthSpend
	}
	return usage, more, nil
}

// ExportNames returns the names of the agents agentIDs and the teams teamIDs
// of ws, by id, for the rows of one export page: one BatchGetItem per 100
// ids, and one more for agents removed by agent.removed, whose names their
// provisioning records keep (removedAgentNames). An id without an item (or
// of another workspace) has no entry.
func (s *Store) ExportNames(ctx context.Context, ws string, agentIDs, teamIDs []string) (agents, teams map[string]string, err error) {
	keys := make([]item, 0, len(agentIDs)+len(teamIDs))
	for _, id := range agentIDs {
		keys = append(keys, key(wsPK(ws), agentSK(id)))
	}
	for _, id := range teamIDs {
		keys = append(keys, key(wsPK(ws), teamSK(id)))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	agents, teams = map[string]string{}, map[string]string{}
	for k, raw := range found {
		var e taggedItem
		if err := unmarshal(raw, &e); err != nil {
			return nil, nil, err
		}
		if k[1] == agentSK(e.ID) {
			agents[e.ID] = e.Name
		} else {
			teams[e.ID] = e.Name
		}
	}
	return agents, teams, s.removedAgentNames(ctx, ws, agentIDs, agents)
}

// UsageMonthItem encodes agent's month usage item as usage of spent (credits
// by day of month) would have left it under release 2.0.0, listing keys on
// the item (the export reads such items as they are), for loading
// large workspaces in bulk (tableops.PutItems): tests and benchmarks of the
// export, never a request path.
func UsageMonthItem(ws string, agent workspace.Agent, month string, spent map[int]float64) (map[string]types.AttributeValue, error) {
	r := agentRef{ws: ws, agent: agent.ID, team: agent.TeamID}
	it := map[string]any{attrPK: agentDataPK(ws, agent.ID), attrSK: usageSK(month), attrEntity: typeUsage}
	for _, a := range usageIndexAttrs(r, month) {
		it[a[0]] = a[1]
	}
	var days []float64
	for d, v := range spent {
		it[spentAttr(d)], it[countedAttr(d)] = v, v
		days = append(days, v)
	}
	it[attrTotal] = workspace.SumCredits(days...)
	return marshal(it)
}

// BackfillUsageListings puts every month usage item of ws's agents that
// lacks the month listings' keys into them (the migration step
// usage-listings): usage written before the listings existed. One Query of
// the workspace's agents (id and team), then per agent, batchConcurrency at
// once, one Query of its month usage items without the keys and one
// UpdateItem per such month that SETs usageIndexAttrs with the agent's
// team, conditioned on the item being there still without them, so a usage
// write that set them meanwhile wins and a second run writes nothing.
func (s *Store) BackfillUsageListings(ctx context.Context, ws string) (workspace.MigrationCounts, error) {
	type agentKeys struct {
		ID     string `dynamodbav:"id"`
		TeamID string `dynamodbav:"teamId"`
	}
	e, err := build(expression.NewBuilder().WithKeyCondition(prefixed(wsPK(ws), prefixAgent)).
		WithProjection(expression.NamesList(expression.Name(attrID), expression.Name(attrTeamID))))
	if err != nil {
		return workspace.MigrationCounts{}, err
	}
	in := &dynamodb.QueryInput{KeyConditionExpression: e.KeyCondition(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()}
	agents, err := queryAll(ctx, s, in, "agents", func(a agentKeys) agentKeys { return a })
	if err != nil {
		return workspace.MigrationCounts{}, err
	}
	changed := make([]int64, len(agents))
	errs := make([]error, len(agents))
	fanOut(ctx, len(agents), func(ctx context.Context, i int) {
		changed[i], errs[i] = s.indexAgentUsage(ctx, agentRef{ws: ws, agent: agents[i].ID, team: agents[i].TeamID})
	})
	counts := workspace.MigrationCounts{Workspaces: 1}
	for i := range agents {
		if errs[i] != nil {
			return counts, errs[i]
		}
		counts.Changed += changed[i]
	}
	return counts, nil
}

// indexAgentUsage sets the listing keys on r's month usage items that lack
// them and returns how many it set.
func (s *Store) indexAgentUsage(ctx context.Context, r agentRef) (int64, error) {
	// A usage item listed by a listing item (release 3.0.0) is listed too.
	unlisted := expression.AttributeNotExists(expression.Name(attrGSI1PK)).And(expression.AttributeNotExists(expression.Name(attrListed)))
	e, err := build(expression.NewBuilder().WithKeyCondition(prefixed(agentDataPK(r.ws, r.agent), prefixUsage)).
		WithFilter(unlisted).WithProjection(expression.NamesList(expression.Name(attrSK))))
	if err != nil {
		return 0, err
	}
	months, err := queryAll(ctx, s, &dynamodb.QueryInput{
		KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}, "agent usage months", func(k keys) string { return strings.TrimPrefix(k.SK, prefixUsage) })
	if err != nil {
		return 0, err
	}
	var listings []string
	if len(months) > 0 {
		// A month listed by its listing item (release 3.0.0) keeps it.
		e, err := build(expression.NewBuilder().WithKeyCondition(prefixed(agentDataPK(r.ws, r.agent), prefixListing)).
			WithProjection(expression.NamesList(expression.Name(attrSK))))
		if err != nil {
			return 0, err
		}
		listings, err = queryAll(ctx, s, &dynamodb.QueryInput{
			KeyConditionExpression: e.KeyCondition(), ProjectionExpression: e.Projection(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		}, "agent usage listings", func(k keys) string { return strings.TrimPrefix(k.SK, prefixListing) })
		if err != nil {
			return 0, err
		}
	}
	var n int64
	for _, month := range months {
		if slices.Contains(listings, month) {
			continue
		}
		var upd expression.UpdateBuilder
		upd = indexUsage(upd, r, month)
		cond := expression.AttributeExists(expression.Name(attrPK)).And(unlisted)
		e, err := build(expression.NewBuilder().WithUpdate(upd).WithCondition(cond))
		if err != nil {
			return n, err
		}
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.table), Key: key(agentDataPK(r.ws, r.agent), usageSK(month)),
			UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		})
		var failed *types.ConditionalCheckFailedException
		switch {
		case errors.As(err, &failed):
			// A usage write listed it meanwhile.
		case err != nil:
			return n, fmt.Errorf("list agent usage month: %w", err)
		default:
			n++
		}
	}
	return n, nil
}
