"""Word lists (gazetteers) used by :mod:`consolidation.extraction_rules`.

Pure data, no logic beyond small helpers that build sets. Lists are meant to
generalise: every Chinese provincial capital and prefecture-level city we could
list, regions, world cities, job-title nouns, industries and tech/tool names.
"""

# --- Chinese places ---------------------------------------------------------
ZH_PROVINCES = """北京 天津 上海 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南
广东 海南 四川 贵州 云南 陕西 甘肃 青海 台湾 内蒙古 广西 西藏 宁夏 新疆 香港 澳门""".split()

ZH_CITIES = """北京 天津 上海 重庆 香港 澳门 台北 高雄 台中 新竹
石家庄 唐山 秦皇岛 邯郸 邢台 保定 张家口 承德 沧州 廊坊 衡水 雄安
太原 大同 阳泉 长治 晋城 朔州 晋中 运城 忻州 临汾 吕梁
呼和浩特 包头 乌海 赤峰 通辽 鄂尔多斯 呼伦贝尔 巴彦淖尔 乌兰察布
沈阳 大连 鞍山 抚顺 本溪 丹东 锦州 营口 阜新 辽阳 盘锦 铁岭 朝阳 葫芦岛
长春 吉林 四平 辽源 通化 白山 松原 白城 延吉
哈尔滨 齐齐哈尔 鸡西 鹤岗 双鸭山 大庆 伊春 佳木斯 七台河 牡丹江 黑河 绥化
南京 无锡 徐州 常州 苏州 南通 连云港 淮安 盐城 扬州 镇江 泰州 宿迁 昆山 江阴 张家港 常熟
杭州 宁波 温州 嘉兴 湖州 绍兴 金华 衢州 舟山 台州 丽水 义乌
合肥 芜湖 蚌埠 淮南 马鞍山 淮北 铜陵 安庆 黄山 滁州 阜阳 宿州 六安 亳州 池州 宣城
福州 厦门 莆田 三明 泉州 漳州 南平 龙岩 宁德 晋江
南昌 景德镇 萍乡 九江 新余 鹰潭 赣州 吉安 宜春 抚州 上饶
济南 青岛 淄博 枣庄 东营 烟台 潍坊 济宁 泰安 威海 日照 临沂 德州 聊城 滨州 菏泽
郑州 开封 洛阳 平顶山 安阳 鹤壁 新乡 焦作 濮阳 许昌 漯河 三门峡 南阳 商丘 信阳 周口 驻马店
武汉 黄石 十堰 宜昌 襄阳 鄂州 荆门 孝感 荆州 黄冈 咸宁 随州 恩施
长沙 株洲 湘潭 衡阳 邵阳 岳阳 常德 张家界 益阳 郴州 永州 怀化 娄底
广州 韶关 深圳 珠海 汕头 佛山 江门 湛江 茂名 肇庆 惠州 梅州 汕尾 河源 阳江 清远 东莞 中山 潮州 揭阳 云浮
南宁 柳州 桂林 梧州 北海 防城港 钦州 贵港 玉林 百色 贺州 河池 来宾 崇左
海口 三亚 三沙 儋州
成都 自贡 攀枝花 泸州 德阳 绵阳 广元 遂宁 内江 乐山 南充 眉山 宜宾 广安 达州 雅安 巴中 资阳
贵阳 六盘水 遵义 安顺 毕节 铜仁 凯里
昆明 曲靖 玉溪 保山 昭通 丽江 普洱 临沧 大理 西双版纳 景洪
拉萨 日喀则 昌都 林芝 山南 那曲
西安 铜川 宝鸡 咸阳 渭南 延安 汉中 榆林 安康 商洛
兰州 嘉峪关 金昌 白银 天水 武威 张掖 平凉 酒泉 庆阳 定西 陇南
西宁 海东 银川 石嘴山 吴忠 固原 中卫
乌鲁木齐 克拉玛依 吐鲁番 哈密 喀什 伊宁 库尔勒 石河子""".split()

# Regions used as organisational units ("华南大区").
ZH_REGIONS = """华南 华东 华北 华中 华西 西南 西北 东北 华南大区 华东大区 华北大区 华中大区 西南大区 西北大区 东北大区
长三角 珠三角 京津冀 大湾区 粤港澳""".split()

# --- world cities (English names) ------------------------------------------
WORLD_CITIES = """London Dublin Manchester Birmingham Edinburgh Glasgow Leeds Bristol Liverpool Cardiff Belfast Cambridge Oxford
Paris Lyon Marseille Toulouse Nice Berlin Munich Hamburg Frankfurt Cologne Stuttgart Dusseldorf Düsseldorf Leipzig
Amsterdam Rotterdam The Hague Utrecht Eindhoven Brussels Antwerp Luxembourg Zurich Geneva Basel Bern Vienna Prague
Warsaw Krakow Kraków Wroclaw Budapest Bucharest Sofia Athens Istanbul Ankara Madrid Barcelona Valencia Seville Lisbon Porto
Rome Milan Turin Naples Florence Bologna Copenhagen Stockholm Gothenburg Oslo Helsinki Reykjavik Tallinn Riga Vilnius
Kyiv Kiev Moscow Saint Petersburg Belgrade Zagreb Ljubljana Bratislava
New York New York City NYC Boston Chicago San Francisco Los Angeles Seattle Austin Dallas Houston Denver Atlanta Miami
Washington Philadelphia Phoenix San Diego San Jose Portland Minneapolis Detroit Pittsburgh Nashville Charlotte
Salt Lake City Las Vegas Orlando Tampa Raleigh Columbus Cleveland Cincinnati St. Louis Kansas City Baltimore Sacramento
Toronto Vancouver Montreal Ottawa Calgary Edmonton Winnipeg Quebec City Halifax
Mexico City Guadalajara Monterrey Sao Paulo São Paulo Rio de Janeiro Buenos Aires Santiago Lima Bogota Bogotá Medellin Quito Caracas Montevideo
Sydney Melbourne Brisbane Perth Adelaide Canberra Auckland Wellington Christchurch
Tokyo Osaka Kyoto Yokohama Nagoya Fukuoka Sapporo Seoul Busan Incheon Singapore Hong Kong Macau Taipei Kaohsiung
Beijing Shanghai Shenzhen Guangzhou Hangzhou Chengdu Wuhan Nanjing Suzhou Xi'an Xian Tianjin Chongqing Xiamen Qingdao Dalian
Ningbo Hefei Changsha Zhengzhou Jinan Kunming Dongguan Foshan Zhuhai Harbin Shenyang
Bangkok Chiang Mai Kuala Lumpur Penang Jakarta Surabaya Bali Manila Cebu Ho Chi Minh City Saigon Hanoi Da Nang Phnom Penh
Yangon Dhaka Kathmandu Colombo Mumbai Bombay Delhi New Delhi Bangalore Bengaluru Hyderabad Chennai Pune Kolkata Ahmedabad Gurgaon Gurugram Noida
Karachi Lahore Islamabad Dubai Abu Dhabi Doha Riyadh Jeddah Kuwait City Muscat Manama Tel Aviv Jerusalem Amman Beirut Tehran
Cairo Alexandria Casablanca Tunis Lagos Abuja Accra Nairobi Addis Ababa Kampala Dar es Salaam Kigali Johannesburg Cape Town Durban Pretoria""".split("\n")


def _split_world(lines):
    out = set()
    multi = ["New York City", "New York", "The Hague", "San Francisco", "Los Angeles", "San Diego", "San Jose",
             "Salt Lake City", "Las Vegas", "St. Louis", "Kansas City", "Quebec City", "Mexico City", "Sao Paulo",
             "São Paulo", "Rio de Janeiro", "Buenos Aires", "Hong Kong", "Chiang Mai", "Kuala Lumpur",
             "Ho Chi Minh City", "Da Nang", "Phnom Penh", "New Delhi", "Abu Dhabi", "Kuwait City", "Tel Aviv",
             "Addis Ababa", "Dar es Salaam", "Cape Town", "Saint Petersburg"]
    text = " ".join(lines)
    for m in multi:
        if m in text:
            out.add(m)
            text = text.replace(m, " ")
    out.update(w for w in text.split() if w)
    return sorted(out, key=len, reverse=True)


WORLD_CITY_LIST = _split_world(WORLD_CITIES)

# --- job titles --------------------------------------------------------------
# Chinese title nouns: a title is "<modifiers><suffix>", e.g. 客户经理, 售前解决方案工程师.
ZH_TITLE_SUFFIXES = """经理 总监 主管 专员 工程师 设计师 分析师 架构师 研究员 会计师 会计 出纳 税务师 医师 药师 技师 教练 审计师 审计 顾问 律师 法务 医生 护士 教师 老师 讲师
助理 秘书 编辑 记者 运营 开发 研发 测试 后端 前端 全栈 算法 销售 客服 采购 文员 HRBP HR BP 数据分析 主任 组长 部长
总裁 CEO CTO CFO COO CIO 创始人 合伙人 店长 司机 调度 厨师 翻译 咨询师 规划师 策划 文案 主播 督导 质检 实习生 管培生
程序员 科学家 精算师 营养师 药剂师 建筑师 技术员 操作员 厂长 院长 校长 教授 产品经理 项目经理 招聘 猎头 培训师 评估师
分析员 统计师 造价师 监理 保安 店员 导购 跟单 报关员 外贸 采购员 业务员 业务 专家 负责人 总经理 副总 董事 PM
管理员 内审员 审核员 稽核员 质检员 安全员 资料员 核算员 联络员 协调员 话务员 收银员 营业员 乘务员 飞行员 公务员 计划员
统计员 仓管员 保管员 办事员 检验员 化验员 巡检员 理货员 配送员 快递员 讲解员 播音员 主持人 评审员 监察员 审查员 专干
护士长 科长 处长 局长 所长 站长 队长 班长 行长 社长 馆长 园长 主编 副主编 车间主任 主治医师 住院医师
原画师 摄影师 工艺师 建造师 理财师 配音师 化妆师 造型师 插画师 动画师 剪辑师 营销师 心理咨询师 咨询顾问
制片 制片人 导演 编剧 监制 场务 统筹""".split()

# Occupational fields: "我在XX公司做结构设计", "我是做嵌入式的" name a job by its field, not by a title noun.
ZH_FIELDS = """设计 研究 注册 美术 原画 嵌入式 运维 开发 测试 运营 销售 算法 审计 咨询 财务 法务 行政 人事 采购 风控 合规
编辑 翻译 客服 市场 产品 售前 售后 实施 质检 品控 投研 投行 会计 招聘 培训 教研 护理 科研 数据 前端 后端 硬件 软件
结构 电气 机械 工艺 策划 文案 剪辑 BD HR PR IT 交付 投资 理财 保险 外贸 报关 物流 仓储 供应链 信贷 审批 精算 建模
薪酬 福利 绩效 员工关系 组织发展 核保 理赔""".split()

EN_TITLE_NOUNS = """engineer developer analyst manager specialist accountant writer designer consultant coordinator director lead
architect scientist administrator admin officer executive assistant associate representative rep recruiter nurse doctor
teacher lecturer professor lawyer attorney paralegal controller auditor planner buyer marketer strategist researcher
technician operator supervisor head president founder co-founder owner intern student SRE PM QA DevOps DBA editor
journalist programmer tester trainer chef driver pharmacist therapist clerk cashier bookkeeper actuary economist banker
broker agent partner principal dispatcher advisor adviser bartender cook plumber librarian secretary waiter waitress
farmer mechanic electrician carpenter firefighter pilot cop soldier dentist veterinarian vet surgeon photographer artist
musician dancer actor actress author novelist baker butcher janitor cleaner housekeeper nanny caregiver pharmacist
receptionist barista cashier translator interpreter tutor professor physician paramedic midwife welder machinist
radiographer sonographer radiologist physiotherapist physio optometrist optician psychologist psychiatrist counselor counsellor
therapist pharmacist dietitian nutritionist hygienist caseworker social worker surveyor estimator underwriter loan officer
copywriter illustrator animator videographer producer curator archivist analyst steward stewardess attendant lifeguard
instructor coach paralegal solicitor barrister notary auditor inspector technologist coder
scheduler expeditor forecaster merchandiser""".split()

EN_TITLE_PHRASES = ["product owner", "scrum master", "business partner", "team lead", "tech lead", "company secretary",
                    "individual contributor", "account executive", "customer success manager"]

# Fields of work a user can switch into ("I switched from marketing to product management").
EN_FIELDS = """management marketing sales engineering design finance accounting consulting operations product research
analytics data science legal compliance recruiting recruitment HR procurement support security infrastructure development
teaching nursing medicine law journalism writing""".split() + [
    "customer success", "customer support", "business development", "product marketing", "partnerships", "data engineering",
    "software engineering", "project management", "people operations", "investor relations", "public relations"]

EN_SENIORITY = ["senior", "junior", "principal", "staff", "lead", "chief", "head", "entry-level", "mid-level"]
ZH_SENIORITY = ["资深", "高级", "初级", "中级", "首席", "一线", "实习"]

# Words that look like a department suffix but are not one.
ZH_NOT_DEPT = set("""全部 内部 外部 部分 局部 头部 底部 中部 东部 西部 南部 北部 大部 细部 腰部 背部 俱乐部 中心 重心 核心 小组 一组 分组
这组 那组 哪组 几组 每组 本部 总部 分部 干部 总部 全组 整组 各部""".split())

# --- industries ------------------------------------------------------------
ZH_INDUSTRIES = """金融科技 互联网金融 半导体 芯片 集成电路 新能源车企 新能源汽车 新能源 光伏 储能 锂电 电池 医疗器械 医疗 医药 生物医药 制药
医院 餐饮 连锁餐饮 零售 连锁超市 超市 便利店 电商 跨境电商 家居 家具 家电 智能硬件 消费电子 物流 冷链物流 快递 供应链
汽车 整车厂 车企 汽车零部件 互联网 游戏 教育 在线教育 培训 制造 制造业 地产 房地产 物业 建筑 基建 保险 银行 证券 基金
投资 咨询 会计师事务所 律所 法律 广告 传媒 媒体 影视 文旅 旅游 酒店 航空 航运 港口 能源 电力 石油 化工 钢铁 煤炭
通信 电信 运营商 云计算 人工智能 大数据 安全 网络安全 政府 国企 央企 外企 快消 服装 纺织 美妆 化妆品 食品 农业 养殖
物联网 机器人 自动驾驶 软件 SaaS 外包 猎头 人力资源 公益 科研院所 高校
装备制造 机械制造 晶圆 晶圆厂 晶圆代工 集装箱码头 码头 集装箱 寿险 财险 人寿 再保险 水产 水产品 海产 制糖 糖业 鞋业 制鞋 鞋服
造船 船厂 酿酒 白酒 酒业 乳业 乳制品 化纤 造纸 政务 会展""".split()

EN_INDUSTRIES = """fintech telecom telecommunications construction retail e-commerce ecommerce healthcare hospital pharma pharmaceutical
biotech semiconductor automotive logistics shipping manufacturing insurance banking bank finance accounting consulting
legal law firm media advertising gaming education edtech software SaaS hospitality hotel airline aviation energy oil gas
utilities mining chemicals real estate property government public sector nonprofit non-profit NGO food beverage
agriculture fashion apparel cosmetics cybersecurity security defence defense aerospace railway rail transport
telecom equipment
orthopedic orthopaedic clinic dental veterinary e-bike bicycle winery wine brewery distillery trucking haulage freight
insurer reinsurance
homebuilder solar renewables utility platinum steel textile footwear seafood dairy sugar
proptech insurtech healthtech medtech""".split() + [
    "shipping line", "container terminal", "retail bank", "investment bank", "general contractor", "law firm", "real estate",
    "public sector", "oil and gas", "life insurance", "clinic group"]

# --- tech, tools, languages ------------------------------------------------
CODE_LANGUAGES = """Python Java JavaScript TypeScript Go Golang Rust Kotlin Swift Objective-C C++ C# C Ruby PHP Scala Perl R MATLAB Julia
Dart Lua Haskell Elixir Erlang Clojure F# Bash Shell PowerShell SQL Groovy VBA Solidity Fortran COBOL""".split()

TECH_SKILLS = """React Vue Angular Svelte Next.js Node.js Node Django Flask FastAPI Spring Spring Boot Rails Laravel .NET Android iOS
Flutter React Native Kubernetes K8s Docker Terraform Ansible AWS Azure GCP Linux Kafka Spark Hadoop Flink Airflow dbt Snowflake
PostgreSQL Postgres MySQL MongoDB Redis Elasticsearch ClickHouse Oracle SQL Server SQLite Hive TensorFlow PyTorch pandas
NumPy scikit-learn Tableau Power BI PowerBI Looker SAP Salesforce Figma Sketch Photoshop Illustrator AutoCAD SolidWorks
Unity Unreal Jenkins GitLab GitHub Playwright Selenium Cypress pytest JUnit Jest Grafana Prometheus Nginx Hive HBase
LabVIEW Simulink Verilog VHDL PLC SystemVerilog""".split()
# Multi-word names were split above ("Power BI" -> "Power", "BI"): put them back whole.
_TECH_MULTI = ["Spring Boot", "React Native", "SQL Server", "Power BI"]
TECH_SKILLS = [w for w in TECH_SKILLS if w not in {"Boot", "Native", "Server", "Power", "BI"}] + _TECH_MULTI

# Tools a user can *prefer*; value -> category (tools of one category supersede each other).
TOOLS = {
    "Excel": "spreadsheet", "Google Sheets": "spreadsheet", "Sheets": "spreadsheet", "Numbers": "spreadsheet",
    "WPS": "office", "Office": "office", "Microsoft Office": "office", "Word": "docs", "Google Docs": "docs",
    "PowerPoint": "slides", "PPT": "slides", "Keynote": "slides", "Google Slides": "slides",
    "Notion": "docs", "Confluence": "docs", "语雀": "docs", "飞书文档": "docs", "石墨文档": "docs", "腾讯文档": "docs",
    "Obsidian": "notes", "Evernote": "notes", "OneNote": "notes",
    "Jira": "tracker", "Trello": "tracker", "Asana": "tracker", "Linear": "tracker", "禅道": "tracker", "Teambition": "tracker",
    "Slack": "chat", "Teams": "chat", "飞书": "chat", "钉钉": "chat", "企业微信": "chat", "微信": "chat",
    "Outlook": "mail", "Gmail": "mail",
    "VS Code": "editor", "VSCode": "editor", "IntelliJ": "editor", "IDEA": "editor", "PyCharm": "editor", "Vim": "editor",
    "Emacs": "editor", "Cursor": "editor", "Jupyter": "notebook",
    "Figma": "design", "Sketch": "design", "Photoshop": "design", "Canva": "design",
    "Tableau": "bi", "Power BI": "bi", "PowerBI": "bi", "Looker": "bi", "帆软": "bi", "FineBI": "bi",
    "Mac": "os", "macOS": "os", "Windows": "os", "Linux": "os",
    "BigQuery": "sql_dialect", "T-SQL": "sql_dialect", "PL/SQL": "sql_dialect", "Redshift": "sql_dialect",
    "PostgreSQL": "sql_dialect", "MySQL": "sql_dialect", "SQLite": "sql_dialect", "Snowflake": "sql_dialect",
    "pytest": "test_framework", "unittest": "test_framework", "JUnit": "test_framework", "Jest": "test_framework",
    "Playwright": "test_framework", "Cypress": "test_framework", "Selenium": "test_framework",
    "ClickHouse": "sql_dialect", "HiveQL": "sql_dialect", "Hive SQL": "sql_dialect", "Hive": "sql_dialect", "Spark SQL": "sql_dialect", "Presto": "sql_dialect",
    "Trino": "sql_dialect", "StarRocks": "sql_dialect", "MaxCompute": "sql_dialect", "SQL Server": "sql_dialect",
    "Primavera P6": "scheduling", "Primavera": "scheduling", "P6": "scheduling", "MS Project": "scheduling",
    "Microsoft Project": "scheduling", "Smartsheet": "scheduling",
}

CURRENCIES = {
    "GBP": "GBP", "pounds sterling": "GBP", "sterling": "GBP", "EUR": "EUR", "euros": "EUR", "euro": "EUR",
    "USD": "USD", "US dollars": "USD", "dollars": "USD", "AUD": "AUD", "Australian dollars": "AUD", "CAD": "CAD",
    "SGD": "SGD", "HKD": "HKD", "JPY": "JPY", "yen": "JPY", "CNY": "CNY", "RMB": "CNY", "yuan": "CNY", "INR": "INR",
    "rupees": "INR", "MYR": "MYR", "ringgit": "MYR", "IDR": "IDR", "PHP": "PHP", "pesos": "PHP", "AED": "AED", "CHF": "CHF",
    "Swiss francs": "CHF", "francs": "CHF", "KRW": "KRW", "won": "KRW", "THB": "THB", "baht": "THB", "dirhams": "AED",
    "PLN": "PLN", "zloty": "PLN", "SEK": "SEK", "kronor": "SEK", "NZD": "NZD", "ZAR": "ZAR", "rand": "ZAR", "BRL": "BRL",
    "reais": "BRL", "MXN": "MXN", "TWD": "TWD", "VND": "VND", "dong": "VND",
    "人民币": "人民币", "美元": "美元", "欧元": "欧元", "英镑": "英镑", "港币": "港币", "日元": "日元", "新加坡元": "新加坡元",
}

# --- education ---------------------------------------------------------------
ZH_UNIVERSITY_SHORT = """清华 北大 复旦 上交 交大 浙大 南大 中科大 哈工大 武大 华科 华中科大 中大 川大 西交 北航 北理工 北邮 北师大
人大 同济 华东师大 华师大 南开 天大 厦大 山大 吉大 东南 大工 大连理工 西工大 电子科大 成电 西电 华工 华南理工 湖大 中南
重大 兰大 东北大学 北交 北科 对外经贸 央财 上财 中财 西南财大 中南财大 港大 港科大 港中文 港理工 NUS 南洋理工 MIT""".split()

# --- third parties and family ----------------------------------------------
ZH_FAMILY = """儿子 女儿 孩子 小孩 宝宝 老婆 妻子 爱人 老公 丈夫 爸爸 妈妈 父亲 母亲 爸 妈 父母 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 外公 外婆
公公 婆婆 岳父 岳母 儿女 闺女 老二 老三 大宝 二宝 小宝 大儿子 小儿子 大女儿 小女儿""".split()
# Family words that only name a family member after 我家 / 我们家 ("我们家老大" = eldest child; "我们老大" = the boss).
ZH_FAMILY_AFTER_HOME = ["老大"]
EN_FAMILY = """son daughter kid kids child children baby wife husband partner mom mum mother dad father parents brother sister
grandma grandmother grandpa grandfather twins""".split()

ZH_OTHERS = """同事 领导 老板 上司 主管 经理 组长 客户 候选人 朋友 对方 供应商 经销商 甲方 乙方 他 她 他们 她们 大家 别人 HR 人事
部门领导 总监 leader 老大 下属 实习生 同学 室友 邻居 房东""".split()
EN_OTHERS = """manager boss colleague coworker co-worker teammate team lead lead supervisor client customer candidate friend
director ceo cfo cto vp he she they his her their vendor supplier partner""".split()

# Places accepted as a residence/work location only after "live in / based in / moved to".
EN_REGION_LIST = sorted("""Alabama,Alaska,Arizona,Arkansas,California,Colorado,Connecticut,Delaware,Florida,Georgia,Hawaii,Idaho,
Illinois,Indiana,Iowa,Kansas,Kentucky,Louisiana,Maine,Maryland,Massachusetts,Michigan,Minnesota,Mississippi,Missouri,Montana,
Nebraska,Nevada,New Hampshire,New Jersey,New Mexico,New York,North Carolina,North Dakota,Ohio,Oklahoma,Oregon,Pennsylvania,
Rhode Island,South Carolina,South Dakota,Tennessee,Texas,Utah,Vermont,Virginia,Washington,West Virginia,Wisconsin,Wyoming,
Ontario,Quebec,British Columbia,Alberta,England,Scotland,Wales,Ireland,Canada,Mexico,Brazil,Argentina,Chile,Peru,Colombia,
France,Germany,Spain,Portugal,Italy,Netherlands,Belgium,Switzerland,Austria,Poland,Sweden,Norway,Denmark,Finland,Greece,
Turkey,Russia,Ukraine,China,Japan,Korea,South Korea,India,Pakistan,Indonesia,Malaysia,Thailand,Vietnam,Philippines,
Australia,New Zealand,Egypt,Nigeria,Kenya,South Africa,Israel,UAE,Saudi Arabia,Qatar""".replace("\n", "").split(","),
                        key=len, reverse=True)

# Leisure activities a user can say they habitually do or like ("我每个周末都去爬山", "I go climbing most weekends").
ZH_HOBBIES = """爬山 徒步 跑步 夜跑 游泳 健身 骑行 钓鱼 打球 羽毛球 篮球 足球 网球 乒乓球 高尔夫 露营 看书 阅读 摄影 瑜伽 滑雪 潜水
下棋 围棋 弹琴 吉他 钢琴 唱歌 画画 书法 旅行 自驾游 追剧 看电影 打游戏 烘焙 做饭 养花 马拉松 攀岩 冲浪 飞盘""".split()
EN_HOBBIES = """hiking climbing bouldering running jogging swimming cycling fishing golf tennis badminton football soccer basketball
camping reading photography yoga skiing snowboarding diving chess gardening baking cooking painting surfing sailing marathons
triathlons""".split()

