"""Play a simulated τ²-bench agent policy on the Telecom test tasks without a CLI (docs/tau2.md):
python benchmarks/bench_tau2.py N POLICY CONDITION, e.g. 40 oracle FSM. Prints each task and the totals."""
import sys, time, json, tempfile
from pathlib import Path
from study.families.tau2.conversation import ModelEndpoint
from study.families.tau2.work import Tau2Work
from study.families.tau2.controller import TelecomController, fsm_variables
from study.families.tau2 import data
from study.fsm import Workflow, FsmRuntime
from study.sim.server import SimServer
from study.sim.tau2.customer import Customer
from study.sim.tau2.agents import make_agent
from study.sim.tau2.direct import play
TEXTS='study/families/tau2/texts_template'
wf = Workflow.load('study/families/tau2/workflows_template/telecom.yaml')
ids = data.frozen_order(data.task_ids('telecom'))
n = int(sys.argv[1]); policy = sys.argv[2]; cond = sys.argv[3]
passed=0; transfers_open=0; ctl=0; turns=0; denied_transfers=0; T=time.time()
for tid in ids[:n]:
    task = data.load_task('telecom', tid).model_dump(mode='json')
    t=time.time()
    with SimServer(Customer(task)) as sim, tempfile.TemporaryDirectory() as tmp:
        work = Tau2Work('telecom', tid, ModelEndpoint('sim-customer', base_url=sim.base_url), texts=TEXTS,
                        controller=TelecomController() if cond=='FSM' else None)
        fsm=None
        if cond=='FSM':
            fsm = FsmRuntime(Path(tmp), {wf.name: wf}, variables=fsm_variables(work.opening())); fsm.enter(wf.name)
        p = play(work, make_agent(policy, task), fsm=fsm)
    o=p.outcome; passed += o['reward']==1; ctl+=o['controller_turns']; turns+=o['agent_turns']
    tr = [c for c,out in p.view.steps if c.tool=='transfer_to_human_agents' and out.ok and not out.denied]
    dt = [c for c,r in p.denied if c.tool=='transfer_to_human_agents']; denied_transfers += bool(dt)
    print(f"{o['reward']} {o['termination_reason']:10s} turns={o['agent_turns']} ctl={o['controller_turns']} denied={len(p.denied)} blocks={p.stops_blocked} transfer={bool(tr)} {time.time()-t:.1f}s {tid[:70]}")
    if (o['reward']!=1 and policy=='oracle') or n==1:
        for c,out in p.view.steps: print('   ', c.tool, json.dumps(c.args)[:100], '->', (out.denied and 'DENIED '+out.denied or out.text)[:200].replace('\n',' '))
        print('   parts', o['parts'], o.get('note'))
print(f'{policy} {cond}: passed {passed} of {n}; controller share {ctl}/{turns}; tasks with a denied transfer {denied_transfers}; {time.time()-T:.0f}s')
