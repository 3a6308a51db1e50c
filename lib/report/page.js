/* page.js: the code of powercut's HTML report: it builds the page from the
   JSON data html.c puts in it, with createElement and textContent only. */
'use strict';
window.onerror=function(m){document.body.dataset.errors=(document.body.dataset.errors||'')+m+'\n';};
const D=JSON.parse(document.getElementById('data').textContent);
/* The verdicts, from powercut's one table: in its order, with a rank (the
   worst of a pixel's states colours it) and a colour.  The one that is no
   verdict (powercut could not check the state) is kept apart from V. */
const NAMES=D.verdicts.map(v=>v.name),C={},RANK={},MEANING={};
D.verdicts.forEach(function(v){C[v.name]=v.colour;RANK[v.name]=v.rank;MEANING[v.name]=v.meaning;});
const OK=NAMES[0],NC=D.verdicts.find(v=>!v.verdict).name,V=NAMES.filter(v=>v!==NC);
function el(tag,text,cls){const e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function row(cells,tag){const tr=el('tr');for(const c of cells){const td=el(tag||'td');if(c instanceof Node)td.appendChild(c);else td.textContent=String(c);tr.appendChild(td);}return tr;}
/* A finding's cause, as the text report's why: line says it (the rule and
   whose fault, the call behind the version lost, when it was durable, the fix). */
function why(p){return p.why||'';}
const WHOSE={filesystem:'the filesystem\'s fault',program:'the program\'s fault',none:'nobody\'s fault: only data never made durable',recovery:'the recovery\'s fault: the kernel\'s and e2fsck\'s disagree'};
function faults(o){return ['recovery','filesystem','program','none'].filter(k=>o&&o[k]).map(k=>k+' '+o[k]).join(', ');}
function secs(x){return x===null||x===undefined?'-':x.toFixed(1)+' s';}
function winCells(w){return [(w.not_durable&&w.open>=(w.longest||0)?'>'+secs(w.open):secs(w.longest)),secs(w.median),w.acknowledged_lost?secs(w.acknowledged_exposed):'-'];}
const TMAX=Math.max(1e-3,...D.configs.map(c=>c.duration));
const redraw=[];document.getElementById('axis').onchange=function(){redraw.forEach(f=>f());};
if(location.hash==='#seconds')document.getElementById('axis').value='seconds';
function chip(v,n){const s=el('span',v+' '+n,'chip');s.style.background=C[v];s.title=MEANING[v]||'';return s;}
document.getElementById('title').textContent=D.title;
if(D.configs.length>1){
  const h=el('h2','Comparison');const t=el('table');t.id='comparison';
  const anyNC=D.configs.some(c=>c.totals[NC]>0),anyW=D.configs.some(c=>c.windows.versions>0);
  t.appendChild(row(['configuration','crash points'].concat(V,['files affected','the filesystem\'s fault','the program\'s fault','nobody\'s fault'],anyNC?['not checked']:[],anyW?['longest window','median window','acknowledged lost']:[]),'th'));
  D.configs.forEach(function(c,i){const r=row([c.label,c.totals.points].concat(V.map(v=>c.totals[v]),[c.files,c.faults.filesystem,c.faults.program,c.faults.none],anyNC?[c.totals[NC]]:[],anyW?winCells(c.windows):[]));
    for(let k=1;k<r.children.length;k++)r.children[k].className='n';r.dataset.config=i;t.appendChild(r);});
  const d=document.getElementById('compare');d.appendChild(h);d.appendChild(t);
}
/* Timelines are aligned on the marks every configuration has: each mark
   sits at the same x in all of them, records in between spread evenly. */
const common=D.configs.length?D.configs[0].marks.map(m=>m.name).filter(nm=>D.configs.every(c=>c.marks.filter(m=>m.name===nm).length===1)):[];
const anchorX=common.map(nm=>D.configs.reduce((a,c)=>a+c.marks.find(m=>m.name===nm).record/Math.max(1,c.records),0)/D.configs.length);
for(let i=1;i<anchorX.length;i++)if(anchorX[i]<anchorX[i-1])anchorX[i]=anchorX[i-1];
function mapper(c){const rs=[0],xs=[0];common.forEach(function(nm,i){rs.push(c.marks.find(m=>m.name===nm).record);xs.push(anchorX[i]);});
  rs.push(Math.max(1,c.records));xs.push(1);
  return function(r){let k=1;while(k<rs.length-1&&r>rs[k])k++;const a=rs[k-1],b=rs[k];
    return xs[k-1]+(b>a?(r-a)/(b-a):0)*(xs[k]-xs[k-1]);};}
const legend=el('div');V.forEach(v=>legend.appendChild(chip(v,'')));
legend.appendChild(el('span','  marks: dark lines; flushes: ticks (and shaded epochs)','muted'));
document.getElementById('configs').appendChild(legend);
D.configs.forEach(function(c,ci){
  const sec=el('section');sec.id='config-'+ci;
  sec.appendChild(el('h2',c.label));
  const hl=el('div',null,'headline');hl.appendChild(el('strong',c.headline[0]));hl.appendChild(el('br'));hl.appendChild(el('span',c.headline[1]));sec.appendChild(hl);
  sec.appendChild(el('div',c.log+' \u2014 model '+c.model+', '+c.totals.points+' crash points from '+
    (c.from||'the start')+' (record '+c.from_record+') of '+c.records+' records, '+c.totals.unique+' distinct images','muted'));
  const tot=el('div');tot.className='totals';
  V.forEach(function(v){if(c.totals[v]||v===OK){const s=chip(v,c.totals[v]);s.dataset.verdict=v;s.dataset.count=c.totals[v];tot.appendChild(s);}});
  if(c.totals[NC]){const s=chip(NC,c.totals[NC]);s.dataset.verdict=NC;s.dataset.count=c.totals[NC];s.title='powercut could not check these states: no verdict';
    tot.appendChild(el('span',' \u2003not a verdict: ','muted'));tot.appendChild(s);}
  sec.appendChild(tot);
  const njt=c.not_judged.filter(p=>p.cause),njm=c.not_judged.filter(p=>!p.cause);
  if(njt.length){const d=el('div','Not judged: '+njt.length+' path(s) written by calls the tracer cannot follow (io_uring, AIO, a shared mapping never msync\'d, another ABI): '+njt.slice(0,20).map(p=>p.path+(p.cause.call?' ('+p.cause.call+')':'')).join(', ')+(njt.length>20?', ...':''),'muted');d.className='notjudged muted';sec.appendChild(d);}
  if(njm.length){const d=el('div','Not judged: '+njm.length+' path(s) the workload changed after its last mark ('+c.last_mark+'); place a final mark after its last change to judge them.','muted');d.className='notjudged muted';sec.appendChild(d);}
  const tl=el('div',null,'tl');const cv=document.createElement('canvas');cv.height=120;tl.appendChild(cv);
  const det=el('div',null,'details');det.textContent='Click the timeline to list the crash points there.';
  sec.appendChild(tl);sec.appendChild(det);
  document.getElementById('configs').appendChild(sec);
  draw(c,cv,det);redraw.push(()=>draw(c,cv,det));
  if(c.windows.versions>0){const w=c.windows;sec.appendChild(el('h3','Durability windows'));
    sec.appendChild(el('div',w.versions+' versions: longest '+secs(w.longest)+', median '+secs(w.median)+
      (w.not_durable?'; '+w.not_durable+' not durable by the last crash point (at risk '+secs(w.open)+' by then)':'')+
      '; acknowledged data lost after its durable mark: '+(w.acknowledged_lost?'up to '+secs(w.acknowledged_exposed)+(w.acknowledged_fault==='program'?' (the program\'s doing: it gave that version up before the next was durable)':''):'none')+
      '. Each bar runs from the mark (or call) that made a version until no crash loses it; yellow while crash states after it still lost it though it was never promised durable, red while they lost it after it was made durable (a broken promise, or the program gave it up), orange: not durable by the end.'+
      (w.paths.length<w.npaths?' The '+w.paths.length+' paths with the longest windows of '+w.npaths+'.':''),'muted'));
    const wt=el('div',null,'tl windows');const wc=document.createElement('canvas');wc.className='windows';wt.appendChild(wc);sec.appendChild(wt);
    drawWin(c,wc);redraw.push(()=>drawWin(c,wc));}
  if(c.paths.length){sec.appendChild(el('h3','Failing paths ('+c.paths.length+')'));const t=el('table');t.className='paths';
    t.appendChild(row(['path','points','verdicts','fault','first','last','at','found there','allowed','why'],'th'));
    c.paths.forEach(function(p){const r=row([p.path,p.count,Object.keys(p.counts).map(k=>k+' '+p.counts[k]).join(', '),faults(p.faults),p.first,p.last,p.at,p.found,p.allowed,why(p)]);
      r.children[0].className='mono';r.children[7].className='mono';r.children[8].className='mono';t.appendChild(r);});
    sec.appendChild(t);}
  if(c.older.length){sec.appendChild(el('h3','What the application lost ('+c.older.length+')'));
    sec.appendChild(el('div','Where the application\'s checker failed, these paths held an older version than the program had by its last acknowledgement: a crash may keep one, but the application counted on the newer.','muted'));
    const t=el('table');t.className='older';t.appendChild(row(['path','points','first','last','found','why'],'th'));
    c.older.forEach(function(p){const r=row([p.path,p.count,p.first,p.last,p.found,why(p)]);r.children[0].className='mono';r.children[4].className='mono';t.appendChild(r);});
    sec.appendChild(t);}
  if(c.failing.length){sec.appendChild(el('h3','Failing crash points ('+c.totals.failing+(c.failing.length<c.totals.failing?', the '+c.failing.length+' most telling listed':', the most telling first')+')'));
    const t=el('table');t.className='failing';t.appendChild(row(['crash point','verdict','whose fault','what, and why','rebuild it'],'th'));
    const AFTER={settle:'after the command: during the settle',sync:'after the command: powercut\'s own sync and unmount'};
    c.failing.forEach(function(f){const what=(f.after_command?[AFTER[f.after_command]||f.after_command]:[]).concat(f.findings.map(x=>x.verdict+' '+x.path+': '+x.found+(x.why?'\nwhy: '+x.why:''))).concat(f.evidence).join('\n');
      const w=el('div',what,'mono');w.style.whiteSpace='pre-wrap';
      t.appendChild(row([el('code',f.id),chip(f.verdict,''),WHOSE[f.fault]||f.fault,w,el('code',f.replay)]));});
    sec.appendChild(t);}
  if(c.unchecked.length){sec.appendChild(el('h3','Crash points not checked ('+c.totals.unchecked+(c.unchecked.length<c.totals.unchecked?', the first '+c.unchecked.length+' listed':'')+')'));
    const t=el('table');t.className='unchecked';t.appendChild(row(['crash point','why','rebuild it'],'th'));
    c.unchecked.forEach(function(f){const w=el('div',f.evidence.join('\n'),'mono');w.style.whiteSpace='pre-wrap';
      t.appendChild(row([el('code',f.id),w,el('code',f.replay)]));});
    sec.appendChild(t);}
});
function secMode(){return document.getElementById('axis').value==='seconds';}
function draw(c,cv,det){
  const W=Math.max(300,cv.parentNode.clientWidth-12);cv.width=W;const H=cv.height;
  const g=cv.getContext('2d');const f=mapper(c);const S=secMode();const clamp=v=>Math.max(0,Math.min(W-1,Math.floor(v*(W-1))));
  /* positions: of a record number, or (against seconds) of a time */
  const x=r=>clamp(f(r)),xt=t=>clamp(t/TMAX);cv.dataset.axis=S?'seconds':'records';
  const P=i=>S?xt(c.t[i]):x(c.rec[i]),FX=j=>S?xt(c.ft[j]):x(c.flushes[j]),MX=m=>S?xt(m.time):x(m.record);
  g.fillStyle='#fff';g.fillRect(0,0,W,H);
  /* flush epochs: alternate bands when they are wide enough, ticks always */
  const fl=c.flushes;let last=S?0:x(0);
  for(let i=0;i<fl.length;i++){const a=last,b=FX(i);if(i%2&&b-a>2){g.fillStyle='#f2f2f2';g.fillRect(a,26,b-a,H-52);}
    g.fillStyle='#aaa';g.fillRect(b,H-24,1,6);last=b;}
  /* crash points: the worst verdict per pixel column */
  const worst=new Int8Array(W).fill(-1);
  for(let i=0;i<c.rec.length;i++){const px=P(i);const v=c.v[i];if(worst[px]<0||RANK[NAMES[v]]>RANK[NAMES[worst[px]]])worst[px]=v;}
  for(let px=0;px<W;px++){const v=worst[px];if(v<0)continue;g.fillStyle=C[NAMES[v]];
    if(v===0)g.fillRect(px,H-48,1,20);else g.fillRect(px,26,2,H-54);}
  /* marks: labelled lines, labels in two lanes */
  g.font='11px sans-serif';g.textBaseline='top';let lastx=-1e9,lane=0;
  c.marks.forEach(function(m){const px=MX(m);g.fillStyle='#555';g.fillRect(px,24,1,H-48);
    lane=px-lastx<90?1-lane:0;lastx=px;g.fillText(m.name+' '+m.time.toFixed(1)+'s',Math.min(px+2,W-80),lane*12);});
  g.fillStyle='#777';g.fillText(S?'0 s':'record 0',0,H-12);const e=S?TMAX.toFixed(1)+' s':'record '+c.records;g.fillText(e,W-g.measureText(e).width,H-12);
  cv.onclick=function(ev){const r=cv.getBoundingClientRect();const px=Math.round((ev.clientX-r.left)*W/r.width);
    const lo=px-2,hi=px+2;det.textContent='';const hits=[];
    for(let i=0;i<c.rec.length&&hits.length<50;i++){const p=P(i);if(p>=lo&&p<=hi)hits.push(i);}
    if(!hits.length){det.textContent='No crash point there.';return;}
    hits.forEach(function(i){const d=el('div');d.appendChild(chip(NAMES[c.v[i]],''));d.appendChild(el('code',c.ids[i]+'  '+c.replay_pre+c.ids[i]+(NAMES[c.v[i]]==='unmountable'||NAMES[c.v[i]]===NC?c.replay_post_raw:c.replay_post)));det.appendChild(d);});};
}
/* windows: a lane per path, a bar per version, against seconds */
function drawWin(c,cv){const w=c.windows;const W=Math.max(300,cv.parentNode.clientWidth-12);cv.width=W;
  const n=w.paths.length,lh=Math.max(3,Math.min(14,Math.floor(420/Math.max(1,n)))),top=14;cv.height=top+n*lh+16;
  const g=cv.getContext('2d');const X=t=>Math.max(0,Math.min(W-1,Math.floor(t/TMAX*(W-1))));
  g.fillStyle='#fff';g.fillRect(0,0,W,cv.height);g.font='11px sans-serif';g.textBaseline='top';
  c.marks.forEach(function(m){g.fillStyle='#eee';g.fillRect(X(m.time),top,1,n*lh);});
  let red=0,amber=0;
  for(let k=0;k<w.bars.length;k+=6){const y=top+w.bars[k]*lh,a=X(w.bars[k+1]),du=w.bars[k+2],ex=w.bars[k+3],ack=w.bars[k+4],ax=w.bars[k+5];
    const b=du<0?X(c.duration):X(du);g.fillStyle=du<0?'#f80':'#9c9';g.fillRect(a,y,Math.max(1,b-a),lh-1);
    if(ex>0){g.fillStyle='#e8c547';g.fillRect(a,y,Math.max(1,X(w.bars[k+1]+ex)-a),lh-1);amber++;}
    if(ack>=0&&ax>0){const r=X(ack);g.fillStyle='#d33';g.fillRect(r,y,Math.max(1,X(ack+ax)-r),lh-1);red++;}}
  if(lh>=10)w.paths.forEach(function(p,i){g.fillStyle='rgba(255,255,255,0.8)';g.fillRect(1,top+i*lh,g.measureText(p).width+4,lh-1);g.fillStyle='#333';g.fillText(p,3,top+i*lh);});
  g.fillStyle='#777';g.fillText('0 s',0,top+n*lh+2);const e=TMAX.toFixed(1)+' s';g.fillText(e,W-g.measureText(e).width,top+n*lh+2);
  cv.dataset.bars=String(w.bars.length/6);cv.dataset.red=String(red);cv.dataset.amber=String(amber);}
document.body.dataset.ms=Math.round(performance.now());document.body.dataset.ready='1';
